// Makes an exact number of write() calls, for tests that count system calls.
//   writes N [SIZE] [THREADS] [CHILDREN] [DELAY_MS]
// Each of the main thread, THREADS extra threads and CHILDREN forked processes writes SIZE bytes
// to /dev/null N times, so the total is N * (1 + THREADS + CHILDREN). DELAY_MS waits first
// (for attaching with -p). The writes go to /dev/null so the size can tag them for a filter.
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long count;
static size_t size;
static int fd;
static char buffer[65536];

static void* write_all(void* unused) {
  (void)unused;
  for (long i = 0; i < count; ++i)
    if (write(fd, buffer, size) < 0) exit(2);
  return NULL;
}

int main(int argc, char** argv) {
  count = argc > 1 ? atol(argv[1]) : 10;
  size = argc > 2 ? (size_t)atol(argv[2]) : 1;
  int threads = argc > 3 ? atoi(argv[3]) : 0;
  int children = argc > 4 ? atoi(argv[4]) : 0;
  long delay_ms = argc > 5 ? atol(argv[5]) : 0;
  if (size > sizeof buffer) size = sizeof buffer;
  if (delay_ms > 0) {
    struct timespec ts = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
  }
  fd = open("/dev/null", O_WRONLY);
  if (fd < 0) return 1;
  for (int c = 0; c < children; ++c) {
    pid_t pid = fork();
    if (pid == 0) {
      write_all(NULL);
      _exit(0);
    }
  }
  pthread_t ids[64];
  if (threads > 64) threads = 64;
  for (int t = 0; t < threads; ++t) pthread_create(&ids[t], NULL, write_all, NULL);
  write_all(NULL);
  for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  for (int c = 0; c < children; ++c) wait(NULL);
  return 0;
}
