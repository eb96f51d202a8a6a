// A known inlined function: mix() is always inlined into blend(), so an address inside blend's
// loop lies in mix's inlined instance (for --inline and the symbols layer's inline frames).
#include <stdlib.h>

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdul;
  x ^= x >> 29;
  return x;
}

__attribute__((noipa)) static unsigned long blend(unsigned long seed, long rounds) {
  unsigned long x = seed;
  for (long i = 0; i < rounds; ++i) x = mix(x + (unsigned long)i);
  return x;
}

int main(int argc, char** argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 50000000;
  return blend(7, rounds) == 42 ? 1 : 0;
}
