// The bundled demo: a CPU-bound program with a known hot path (main -> run -> work -> hot_leaf)
// that also makes a known number of write() calls, so every sonde command has something to find.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

// One cheap call out of hot_leaf: gcc 12 gives a function that calls nothing no frame even with
// -fno-omit-frame-pointer, and frame-pointer unwinding would then lose its caller (work).
__attribute__((noinline)) static unsigned long settle(unsigned long x) {
  __asm__ volatile("" : "+r"(x));
  return x;
}

__attribute__((noinline)) static unsigned long hot_leaf(unsigned long x) {
  for (int i = 0; i < 1000; ++i) x = x * 6364136223846793005ul + 1442695040888963407ul;
  return settle(x) + 1;  // work after the call: not a tail call, so hot_leaf keeps a frame
}

__attribute__((noinline)) static unsigned long work(unsigned long seed, long rounds) {
  unsigned long x = seed;
  for (long i = 0; i < rounds; ++i) x = hot_leaf(x) ^ (unsigned long)i;
  return x;
}

__attribute__((noinline)) static unsigned long run(long rounds, int writes) {
  unsigned long x = 1;
  for (int i = 0; i < writes; ++i) {
    x = work(x, rounds / (writes ? writes : 1));
    char line[32];
    int n = snprintf(line, sizeof line, "%lx\n", x & 0xfff);
    if (write(STDOUT_FILENO, line, (size_t)n) < 0) return 0;
  }
  return x;
}

int main(int argc, char** argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 200000;
  int writes = argc > 2 ? atoi(argv[2]) : 10;
  return run(rounds, writes) == 42 ? 1 : 0;
}
