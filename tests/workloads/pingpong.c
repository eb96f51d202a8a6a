// Two threads passing a byte back and forth over two pipes, for context-switch-heavy benchmarks
// of scheduler tracing:   pingpong N
// Each of the N round trips blocks each thread once in read(): 2N sleeps, 2N wake-ups, and at
// least 2N context switches each way.
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds;

static void* responder(void* unused) {
  (void)unused;
  char byte;
  for (long i = 0; i < rounds; ++i) {
    if (read(ping[0], &byte, 1) != 1 || write(pong[1], &byte, 1) != 1) exit(3);
  }
  return NULL;
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? atol(argv[1]) : 100000;
  if (pipe(ping) != 0 || pipe(pong) != 0) return 1;
  pthread_t thread;
  if (pthread_create(&thread, NULL, responder, NULL) != 0) return 2;
  char byte = 'p';
  for (long i = 0; i < rounds; ++i) {
    if (write(ping[1], &byte, 1) != 1 || read(pong[0], &byte, 1) != 1) return 4;
  }
  pthread_join(thread, NULL);
  return 0;
}
