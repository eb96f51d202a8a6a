// Targets for `sonde probe` (and perf probe, the oracle): every probed function is out of line
// (noipa) and called with values known from the round number alone, so a test knows each value.
// Round r (0-based) of N: add_ints(r, 1000+r, 7); name_length("alpha"/"beta"/"gamma"[r%3]);
// area({3+r, 4, nullptr, "pt"}); sum_to(3); scale_first(r), scale_second(r); Counter::bump(10*r);
// touch_global() (g_counter is 100*r at entry); flag_level({ready 1, level r%8}); malloc(12345) twice.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define PROBED __attribute__((noipa, noinline))

extern "C" {

struct point {
  int x;
  int y;
  struct point *next;
  char label[8];
};

struct flags {
  unsigned int ready : 1;
  unsigned int level : 3;
  unsigned int spare : 4;
};

long g_counter;
void *volatile g_keep;  // malloc'ed blocks pass through here so the calls are not elided

PROBED int add_ints(int a, long b, unsigned char c) { return (int)(a + b + c); }

PROBED unsigned long name_length(const char *name) { return strlen(name); }

PROBED long area(const struct point *p) { return (long)p->x * p->y; }

PROBED int flag_level(const struct flags *f) { return f->ready ? (int)f->level : -1; }

// Two inline instances of scale: one in scale_first, one in scale_second.
static inline __attribute__((always_inline)) int scale(int v) {
  int scaled = v * 3 + 1;
  asm volatile("" : "+r"(scaled));  // keeps scaled (and v) in registers, visible to a probe
  return scaled;
}

PROBED int scale_first(int x) { return scale(x) + 1; }

PROBED int scale_second(int x) { return scale(x + 2) * 2; }

PROBED long sum_to(int n) {
  long total = 0;
  for (int i = 0; i < n; ++i) {
    int step = i * 2 + 1;
    asm volatile("" : "+r"(step));  // keeps the loop a loop (no closed form, no vectors)
    total += step;  // probe-line: step
  }
  return total;
}

PROBED void touch_global(void) { g_counter += 100; }

PROBED void churn_malloc(void) {
  for (int i = 0; i < 2; ++i) {
    g_keep = malloc(12345);
    free(g_keep);
  }
  g_keep = malloc(100);
  free(g_keep);
  g_keep = malloc(200);
  free(g_keep);
}

}  // extern "C"

struct Counter {
  long value;
  __attribute__((noipa)) long bump(long delta);
};

long Counter::bump(long delta) {
  value += delta;
  return value;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  static const char *const names[3] = {"alpha", "beta", "gamma"};
  Counter counter{0};
  long checksum = 0;
  for (int r = 0; r < rounds; ++r) {
    checksum += add_ints(r, 1000 + r, 7);
    checksum += (long)name_length(names[r % 3]);
    struct point p = {3 + r, 4, nullptr, "pt"};
    checksum += area(&p);
    struct flags f = {1, (unsigned)(r % 8), 0};
    checksum += flag_level(&f);
    checksum += scale_first(r) + scale_second(r);
    checksum += sum_to(3);
    checksum += counter.bump(10 * r);
    touch_global();
    churn_malloc();
  }
  printf("%ld\n", checksum + g_counter);
  return 0;
}
