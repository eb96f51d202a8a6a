// A tiny JIT: copies two machine-code loops into an anonymous executable mapping, announces
// them in /tmp/perf-PID.map ("START SIZE name", hex) as JIT runtimes do, and runs them. The map
// file stays behind for the profiler, as perf expects; whoever runs this removes it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
// unsigned long f(unsigned long x, unsigned long n) { do x = x * 3 + 1; while (--n); return x; }
static const unsigned char spin_code[] = {
    0x48, 0x89, 0xf8,        // mov  %rdi,%rax
    0x48, 0x6b, 0xc0, 0x03,  // loop: imul $3,%rax,%rax
    0x48, 0x83, 0xc0, 0x01,  // add  $1,%rax
    0x48, 0xff, 0xce,        // dec  %rsi
    0x75, 0xf3,              // jne  loop
    0xc3,                    // ret
};
enum { kSecondOffset = 64 };

int main(int argc, char** argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 200;
  unsigned char* code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return 1;
  memcpy(code, spin_code, sizeof spin_code);
  memcpy(code + kSecondOffset, spin_code, sizeof spin_code);
  if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0) return 1;

  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
  FILE* map = fopen(path, "w");
  if (!map) return 1;
  fprintf(map, "%lx %zx jit_spin_first\n", (unsigned long)code, sizeof spin_code);
  fprintf(map, "%lx %zx jit_spin_second\n", (unsigned long)(code + kSecondOffset), sizeof spin_code);
  fclose(map);

  typedef unsigned long (*spin_fn)(unsigned long, unsigned long);
  spin_fn first = (spin_fn)(void*)code, second = (spin_fn)(void*)(code + kSecondOffset);
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
