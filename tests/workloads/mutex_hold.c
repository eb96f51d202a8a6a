// A mutex held for known times, for off-CPU and wake-up tests:   mutex_hold N MS
// N rounds: the main thread takes the mutex, tells the other thread to go (a pipe), holds it MS ms
// and lets it go in release_the_mutex(); the other thread, told to go, blocks in
// take_the_mutex() until then. So the other thread waits about N * MS ms for the mutex, and
// release_the_mutex() wakes it each time.
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static int go[2], done[2];
static long rounds, hold_ms;

// The libc calls sit one call below the functions a profile should name (frame-pointer stacks
// lose the caller of a libc function); `volatile` results keep them from being tail calls.
__attribute__((noinline)) static void lock_it(void) {
  volatile int result = pthread_mutex_lock(&mutex);
  if (result != 0) exit(3);
}

__attribute__((noinline)) static void unlock_it(void) {
  volatile int result = pthread_mutex_unlock(&mutex);
  if (result != 0) exit(4);
}

__attribute__((noinline)) static void take_the_mutex(void) {
  lock_it();
  unlock_it();
}

__attribute__((noinline)) static void release_the_mutex(void) {
  unlock_it();
  __asm__ volatile("" ::: "memory");
}

static void* contender(void* unused) {
  (void)unused;
  char byte;
  for (long i = 0; i < rounds; ++i) {
    if (read(go[0], &byte, 1) != 1) exit(5);
    take_the_mutex();
    if (write(done[1], "d", 1) != 1) exit(6);
  }
  return NULL;
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? atol(argv[1]) : 5;
  hold_ms = argc > 2 ? atol(argv[2]) : 40;
  if (pipe(go) != 0 || pipe(done) != 0) return 1;
  pthread_t thread;
  if (pthread_create(&thread, NULL, contender, NULL) != 0) return 2;
  struct timespec hold = {hold_ms / 1000, (hold_ms % 1000) * 1000000L};
  char byte;
  for (long i = 0; i < rounds; ++i) {
    lock_it();
    if (write(go[1], "g", 1) != 1) return 7;
    nanosleep(&hold, NULL);
    release_the_mutex();
    if (read(done[0], &byte, 1) != 1) return 8;
  }
  pthread_join(thread, NULL);
  return 0;
}
