// A tiny JIT: copies two machine-code loops into an anonymous executable mapping, announces
// them in /tmp/perf-PID.map ("START SIZE name", hex) as JIT runtimes do, and runs them. The map
// file stays behind for the profiler, as perf expects; whoever runs this removes it.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "jit_code.h"

#if defined(__x86_64__)
int main(int argc, char** argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 200;
  unsigned char* code = jit_compile();
  if (code == NULL) return 1;

  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
  FILE* map = fopen(path, "w");
  if (!map) return 1;
  fprintf(map, "%lx %zx jit_spin_first\n", (unsigned long)code, sizeof jit_loop_code);
  fprintf(map, "%lx %zx jit_spin_second\n", (unsigned long)(code + JIT_SECOND_OFFSET), sizeof jit_loop_code);
  fclose(map);

  jit_loop_fn first = (jit_loop_fn)(void*)code, second = (jit_loop_fn)(void*)(code + JIT_SECOND_OFFSET);
  unsigned long x = 1;
  for (long i = 0; i < rounds; ++i) x = first(x, 1000000) ^ second(x, 1000000);
  printf("%lx\n", x & 0xff);
  return 0;
}
#else
int main(void) {
  fprintf(stderr, "jit: only x86_64 machine code is included\n");
  return 2;
}
#endif
