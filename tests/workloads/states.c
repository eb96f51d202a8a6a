// One thread through each scheduling state for a known time, for off-CPU and wall-clock tests:
//   states MS        (run it pinned to one CPU: taskset -c 0 states 100)
// The main thread, in order: computes for MS ms of its own CPU time in compute() while a second
// thread computes beside it (pinned to one CPU, each waits about as long as it runs: preempted,
// runnable); sleeps MS ms in nanosleep() in take_a_nap() (interruptible sleep, S); then vforks a
// child that sleeps MS ms before exiting, in wait_for_child() (the parent waits uninterruptibly, D).
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long ms;
static atomic_int computing = 1;

static double cpu_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

// The system calls sit one call below the functions a profile should name (frame-pointer stacks
// lose the caller of a libc function): pause_ms() and spawn_sleeper() are those calls.
__attribute__((noinline)) static void pause_ms(long milliseconds) {
  struct timespec pause = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
  nanosleep(&pause, NULL);
}

static void* rival(void* unused) {
  (void)unused;
  volatile unsigned long spins = 0;
  while (atomic_load(&computing)) ++spins;
  return NULL;
}

// The thread's CPU clock is read by a system call: once per 100000 spins, so that the time is
// spent (and sampled) here.
__attribute__((noinline)) static void compute(void) {
  volatile unsigned long spins = 0;
  double end = cpu_seconds() + (double)ms / 1000.0;
  do {
    for (int i = 0; i < 100000; ++i) ++spins;
  } while (cpu_seconds() < end);
}

__attribute__((noinline)) static void take_a_nap(void) {
  pause_ms(ms);
  __asm__ volatile("" ::: "memory");  // not a tail call: take_a_nap() stays on the stack
}

// The child never returns from here (it exits), as vfork requires.
__attribute__((noinline)) static pid_t spawn_sleeper(void) {
  pid_t child = vfork();
  if (child == 0) {
    pause_ms(ms);
    _exit(0);
  }
  return child;
}

__attribute__((noinline)) static void wait_for_child(void) {
  if (spawn_sleeper() < 0) exit(3);
}

int main(int argc, char** argv) {
  ms = argc > 1 ? atol(argv[1]) : 100;
  pthread_t thread;
  if (pthread_create(&thread, NULL, rival, NULL) != 0) return 2;
  compute();
  atomic_store(&computing, 0);
  pthread_join(thread, NULL);
  take_a_nap();
  wait_for_child();
  return 0;
}
