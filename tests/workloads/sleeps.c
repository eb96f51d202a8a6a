// Sleeps a known number of times for a known duration, for latency tests.
//   sleeps N MS
// The main thread calls nanosleep() N times for MS milliseconds each (one clock_nanosleep
// system call per sleep), and makes no other slow system call in between.
#include <stdlib.h>
#include <time.h>

int main(int argc, char** argv) {
  long count = argc > 1 ? atol(argv[1]) : 10;
  long ms = argc > 2 ? atol(argv[2]) : 10;
  struct timespec duration = {ms / 1000, (ms % 1000) * 1000000L};
  for (long i = 0; i < count; ++i)
    if (nanosleep(&duration, NULL) != 0) return 1;
  return 0;
}
