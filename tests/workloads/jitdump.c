// A tiny JIT that writes a jitdump, as JIT runtimes do for perf inject -j:
//   jitdump DIR [ROUNDS]
// Copies two machine-code loops into an anonymous executable mapping, writes DIR/jit-PID.dump
// (the header and one JIT_CODE_LOAD record per function, stamped with CLOCK_MONOTONIC), maps one
// page of it executable so the recording names it, then runs jit_loop_hot three times as long
// as jit_loop_cold, ROUNDS times (default 100).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "jit_code.h"

#if defined(__x86_64__)
static uint64_t monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

static void put(FILE* out, const void* data, size_t size) {
  if (fwrite(data, 1, size, out) != size) exit(3);
}

// One JIT_CODE_LOAD: prefix (id 0, size, time), pid, tid, vma, code address, size, index, name, code.
static void code_load(FILE* out, const char* name, const unsigned char* code, uint64_t size, uint64_t index) {
  uint32_t id = 0, total = (uint32_t)(16 + 40 + strlen(name) + 1 + size);
  uint64_t now = monotonic_ns(), address = (uint64_t)(uintptr_t)code;
  uint32_t pid = (uint32_t)getpid(), tid = (uint32_t)syscall(SYS_gettid);
  put(out, &id, 4), put(out, &total, 4), put(out, &now, 8);
  put(out, &pid, 4), put(out, &tid, 4), put(out, &address, 8), put(out, &address, 8);
  put(out, &size, 8), put(out, &index, 8);
  put(out, name, strlen(name) + 1);
  put(out, code, size);
}

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  long rounds = argc > 2 ? atol(argv[2]) : 100;
  unsigned char* code = jit_compile();
  if (code == NULL) return 1;

  char path[4096];
  snprintf(path, sizeof path, "%s/jit-%d.dump", argv[1], (int)getpid());
  FILE* dump = fopen(path, "w+");
  if (!dump) return 2;
  // Header: magic, version 1, its size, ELF machine (EM_X86_64), padding, pid, time, flags.
  uint32_t magic = 0x4A695444, version = 1, header_size = 40, machine = 62, pad = 0, pid = (uint32_t)getpid();
  uint64_t now = monotonic_ns(), flags = 0;
  put(dump, &magic, 4), put(dump, &version, 4), put(dump, &header_size, 4), put(dump, &machine, 4);
  put(dump, &pad, 4), put(dump, &pid, 4), put(dump, &now, 8), put(dump, &flags, 8);
  // The marker: an executable mapping of the dump, which the kernel reports to the profiler.
  fflush(dump);
  void* marker = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(dump), 0);
  if (marker == MAP_FAILED) return 2;
  code_load(dump, "jit_loop_hot", code, sizeof jit_loop_code, 1);
  code_load(dump, "jit_loop_cold", code + JIT_SECOND_OFFSET, sizeof jit_loop_code, 2);
  fclose(dump);

  jit_loop_fn hot = (jit_loop_fn)(void*)code, cold = (jit_loop_fn)(void*)(code + JIT_SECOND_OFFSET);
  unsigned long x = 1;
  for (long i = 0; i < rounds; ++i) x = hot(x, 3000000) ^ cold(x, 1000000);
  printf("%lx\n", x & 0xff);
  return 0;
}
#else
int main(void) {
  fprintf(stderr, "jitdump: only x86_64 machine code is included\n");
  return 2;
}
#endif
