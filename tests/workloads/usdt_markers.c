// Fires USDT (SystemTap SDT) markers with known arguments, for `probe` tests.
//   usdt_markers [N]      (N defaults to 3)
// Needs <sys/sdt.h> (Debian: systemtap-sdt-dev).
//
// sonde_test:tick, no semaphore, fires N times, for i = 0 .. N-1, with
//   arg1 = i         (int,          "-4@...")
//   arg2 = i * 10    (long,         "-8@...")
//   arg3 = "tick"    (const char *, "8@..."; the address of the string tick_name)
// sonde_test:tock, semaphore sonde_test_tock_semaphore (unsigned short in section .probes, as
// dtrace -G defines them), fires only while the semaphore is non-zero, then 2*N times, for
// j = 0 .. 2N-1, with
//   arg1 = j                  (int,            "-4@...")
//   arg2 = 42                 (constant,       "-4@$42": perf skips it, no arg2)
//   arg3 = -j                 (short,          "-2@...")
//   arg4 = (j + 1) & 0xff     (unsigned char,  "1@...")
// Each marker sits in one noinline function, so the file has exactly one note for each.
// Prints "ticks=N tocks=T" at the end, T being 2N when the semaphore was set and 0 otherwise.
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

// The kernel adds one to the semaphore for each uprobe that names it (uprobe_events'
// "PATH:0xOFFSET(0xSEMAPHORE_OFFSET)"); volatile, so that every test of it reads memory.
volatile unsigned short sonde_test_tock_semaphore __attribute__((section(".probes")));

static const char tick_name[] = "tick";

__attribute__((noinline)) static void fire_tick(int i, const char* name) {
  DTRACE_PROBE3(sonde_test, tick, i, (long)i * 10, name);
}

// sys/sdt.h chooses what the note records as the semaphore when it is included: 0 for every
// probe, or provider_name_semaphore for every probe (_SDT_HAS_SEMAPHORES, as dtrace -h headers
// do). This file has one probe of each kind, so the semaphore field is switched for tock alone.
#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR p##_##n##_semaphore)
__attribute__((noinline)) static void fire_tock(int j) {
  DTRACE_PROBE4(sonde_test, tock, j, 42, (short)-j, (unsigned char)(j + 1));
}
#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR 0)

int main(int argc, char** argv) {
  int count = argc > 1 ? atoi(argv[1]) : 3;
  int ticks = 0, tocks = 0;
  for (int i = 0; i < count; ++i) {
    fire_tick(i, tick_name);
    ++ticks;
  }
  for (int j = 0; j < 2 * count; ++j) {
    if (sonde_test_tock_semaphore) {
      fire_tock(j);
      ++tocks;
    }
  }
  printf("ticks=%d tocks=%d\n", ticks, tocks);
  return 0;
}
