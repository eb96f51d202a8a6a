// What the tiny JITs (jit.c, jitdump.c) compile: one x86_64 loop, copied twice into an anonymous
// mapping made executable, at offsets 0 and JIT_SECOND_OFFSET.
#ifndef SONDE_WORKLOADS_JIT_CODE_H
#define SONDE_WORKLOADS_JIT_CODE_H
#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__)
// unsigned long f(unsigned long x, unsigned long n) { do x = x * 3 + 1; while (--n); return x; }
static const unsigned char jit_loop_code[] = {
    0x48, 0x89, 0xf8,        // mov  %rdi,%rax
    0x48, 0x6b, 0xc0, 0x03,  // loop: imul $3,%rax,%rax
    0x48, 0x83, 0xc0, 0x01,  // add  $1,%rax
    0x48, 0xff, 0xce,        // dec  %rsi
    0x75, 0xf3,              // jne  loop
    0xc3,                    // ret
};
enum { JIT_SECOND_OFFSET = 64 };
typedef unsigned long (*jit_loop_fn)(unsigned long, unsigned long);

// The two copies in a fresh executable page, or NULL.
static unsigned char* jit_compile(void) {
  unsigned char* code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return NULL;
  memcpy(code, jit_loop_code, sizeof jit_loop_code);
  memcpy(code + JIT_SECOND_OFFSET, jit_loop_code, sizeof jit_loop_code);
  if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0) return NULL;
  return code;
}
#endif
#endif
