// Two threads handing work over a pipe, for tests of interleaved calls and of wake-ups.
//   handoff N MS
// N rounds: the main thread blocks in read() on a pipe in wait_for_work(); a second thread
// sleeps MS milliseconds (one clock_nanosleep) in hand_over() and then writes one byte to the
// pipe, waking it. So each of the main thread's N reads is in flight while the other thread's
// nanosleep and write enter, each thread spends about N * MS ms blocked (the main thread in
// wait_for_work(), the other in hand_over()), and the main thread's waker is hand_over().
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int pipe_fds[2];
static long rounds;
static long sleep_ms;

// The system calls sit one call below the functions a profile should name: frame-pointer stacks
// lose the caller of a libc function (it sets up no frame), so that caller is a wrapper.
__attribute__((noinline)) static void pause_ms(void) {
  struct timespec pause = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
  nanosleep(&pause, NULL);
}

__attribute__((noinline)) static long write_byte(void) {
  char byte = 'w';  // on the stack: no tail call, so hand_over() stays on the stack
  return write(pipe_fds[1], &byte, 1);
}

__attribute__((noinline)) static long read_byte(void) {
  char byte;
  return read(pipe_fds[0], &byte, 1);
}

__attribute__((noinline)) static void hand_over(void) {
  pause_ms();
  if (write_byte() != 1) exit(3);
}

static void* worker(void* unused) {
  (void)unused;
  for (long i = 0; i < rounds; ++i) hand_over();
  return NULL;
}

__attribute__((noinline)) static void wait_for_work(void) {
  if (read_byte() != 1) exit(4);
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? atol(argv[1]) : 5;
  sleep_ms = argc > 2 ? atol(argv[2]) : 10;
  if (pipe(pipe_fds) != 0) return 1;
  pthread_t thread;
  if (pthread_create(&thread, NULL, worker, NULL) != 0) return 2;
  for (long i = 0; i < rounds; ++i) wait_for_work();
  pthread_join(thread, NULL);
  return 0;
}
