// Makes one of each of the calls whose arguments sonde trace prints as perf trace does, in a
// fixed order, for tests that compare the two line by line:   trace_calls DIR [THREADS]
// In DIR: openat("DIR/trace-calls.txt", O_CREAT|O_WRONLY|O_TRUNC, 0640), a 12-byte write,
// fcntl(F_SETFD, FD_CLOEXEC) and fcntl(F_GETFL), close; the file opened again O_RDONLY, a 64-byte
// read (12 read) and a read at its end (0), ioctl(FIONREAD), a one-page shared mmap of it, its
// munmap, close; an anonymous 8192-byte mmap, mprotect(PROT_READ), munmap; a failing openat
// ("DIR/missing", ENOENT) and read (fd -1, EBADF); kill(self, 0), kill(self, SIGUSR1) (handled),
// kill(no such pid, SIGTERM) (ESRCH); a fork whose child exits 7; a fork whose child execs
// /bin/true with argv ["true", "sonde-arg"]; then THREADS threads (default 0) made with
// pthread_create one after another, each writing 5 bytes to /dev/null before it is joined.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got_signal;
static int null_fd;

static void on_signal(int signo) { got_signal = signo; }

static void* thread_body(void* unused) {
  (void)unused;
  if (write(null_fd, "sonde", 5) != 5) exit(20);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  int threads = argc > 2 ? atoi(argv[2]) : 0;
  char path[4096], missing[4096];
  snprintf(path, sizeof path, "%s/trace-calls.txt", argv[1]);
  snprintf(missing, sizeof missing, "%s/missing", argv[1]);
  signal(SIGUSR1, on_signal);

  int fd = openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, 0640);
  if (fd < 0) return 2;
  if (write(fd, "hello sonde\n", 12) != 12) return 3;
  if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) return 4;
  if (fcntl(fd, F_GETFL) < 0) return 5;
  close(fd);

  fd = openat(AT_FDCWD, path, O_RDONLY);
  if (fd < 0) return 6;
  char buffer[64];
  if (read(fd, buffer, sizeof buffer) != 12) return 7;
  if (read(fd, buffer, sizeof buffer) != 0) return 8;
  int pending = -1;
  if (ioctl(fd, FIONREAD, &pending) != 0) return 9;
  void* file_map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
  if (file_map == MAP_FAILED) return 10;
  munmap(file_map, 4096);
  close(fd);

  void* map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return 11;
  if (mprotect(map, 8192, PROT_READ) != 0) return 12;
  munmap(map, 8192);

  if (openat(AT_FDCWD, missing, O_RDONLY) >= 0) return 13;
  if (read(-1, buffer, sizeof buffer) >= 0) return 14;

  pid_t self = getpid();
  if (kill(self, 0) != 0) return 15;
  if (kill(self, SIGUSR1) != 0 || got_signal != SIGUSR1) return 16;
  if (kill(4194304 + 7, SIGTERM) == 0) return 17;  // above the largest pid_max: ESRCH

  int status = 0;
  pid_t child = fork();
  if (child == 0) _exit(7);
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 7) return 18;

  child = fork();
  if (child == 0) {
    char* child_argv[] = {"true", "sonde-arg", NULL};
    char* child_env[] = {"SONDE=1", NULL};
    execve("/bin/true", child_argv, child_env);
    _exit(127);
  }
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 19;

  null_fd = open("/dev/null", O_WRONLY);
  for (int i = 0; i < threads; ++i) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, thread_body, NULL) != 0) return 21;
    pthread_join(thread, NULL);
  }
  return 0;
}
