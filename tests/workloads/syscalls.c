// Makes a known number of several system calls, some failing on purpose, for sonde trace's
// tests:   syscalls N [DELAY_MS]
// N times each: getppid(); kill(self, 0) and kill(pid 4194304+, 0) (ESRCH); fchdir(-1) (EBADF);
// write(/dev/null, 11 bytes); openat("/nonexistent/sonde-trace") (ENOENT); an anonymous
// 8192-byte mmap and its munmap. Then one fork whose child exits 0 and is waited for.
// DELAY_MS sleeps first (for attaching with -p).
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  long count = argc > 1 ? atol(argv[1]) : 10;
  long delay_ms = argc > 2 ? atol(argv[2]) : 0;
  if (delay_ms > 0) {
    struct timespec ts = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
  }
  static const char text[] = "sonde trace";
  int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd < 0) return 1;
  pid_t self = getpid();
  for (long i = 0; i < count; ++i) {
    getppid();
    kill(self, 0);
    kill(4194304 + 7, 0);  // above the largest pid_max: no such process
    if (fchdir(-1) == 0) return 2;
    if (write(null_fd, text, 11) != 11) return 3;
    if (openat(AT_FDCWD, "/nonexistent/sonde-trace", O_RDONLY) >= 0) return 4;
    void* map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return 5;
    munmap(map, 8192);
  }
  pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 6;
}
