// deep_stacks: 100 functions calling each other 24-48 deep along seeded random paths, for the
// report benchmark. Usage: deep_stacks MODE CPU_SECONDS [THREADS] (CPU seconds per thread)
//   MODE hot:    8 fixed paths (one taken 60% of the time), so a profile has a few hot stacks;
//   MODE unique: a fresh random path for every walk, so nearly every sampled stack is unique.
// Each walk ends in a short spin inside its last function, so samples land at the bottom of
// deep frame-pointer chains. Deterministic for a given mode (seeded generators per thread).
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NFUNCS 100
#define MAX_DEPTH 48
#define MIN_DEPTH 24
#define HOT_PATHS 8

struct walk {
  int len;
  unsigned char path[MAX_DEPTH];
  unsigned spin;
};

typedef unsigned long (*step_fn)(const struct walk*, int);
static step_fn table[NFUNCS];

// Every function: go one deeper along the path, or spin when the path ends here. The work after
// the call keeps a frame (no tail call), so frame-pointer unwinding sees every caller.
#define STEP(n)                                                                          \
  __attribute__((noinline)) static unsigned long f##n(const struct walk* w, int depth) { \
    unsigned long x = (unsigned long)depth * 2654435761ul + n;                           \
    if (depth + 1 < w->len) {                                                            \
      x ^= table[w->path[depth + 1]](w, depth + 1);                                      \
    } else {                                                                             \
      for (unsigned i = 0; i < w->spin; ++i) x = x * 6364136223846793005ul + 1;          \
    }                                                                                    \
    __asm__ volatile("" : "+r"(x));                                                      \
    return x + 1;                                                                        \
  }
#define STEP10(t) STEP(t##0) STEP(t##1) STEP(t##2) STEP(t##3) STEP(t##4) STEP(t##5) STEP(t##6) STEP(t##7) STEP(t##8) STEP(t##9)
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8) STEP(9)
STEP10(1) STEP10(2) STEP10(3) STEP10(4) STEP10(5) STEP10(6) STEP10(7) STEP10(8) STEP10(9)

#define ENTRY(n) table[n] = f##n;
#define ENTRY10(t) ENTRY(t##0) ENTRY(t##1) ENTRY(t##2) ENTRY(t##3) ENTRY(t##4) ENTRY(t##5) ENTRY(t##6) ENTRY(t##7) ENTRY(t##8) ENTRY(t##9)
static void fill_table(void) {
  ENTRY(0) ENTRY(1) ENTRY(2) ENTRY(3) ENTRY(4) ENTRY(5) ENTRY(6) ENTRY(7) ENTRY(8) ENTRY(9)
  ENTRY10(1) ENTRY10(2) ENTRY10(3) ENTRY10(4) ENTRY10(5) ENTRY10(6) ENTRY10(7) ENTRY10(8) ENTRY10(9)
}

static uint64_t next_random(uint64_t* state) {  // xorshift64*
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 2685821657736338717ull;
}

static void random_path(struct walk* w, uint64_t* state) {
  w->len = MIN_DEPTH + (int)(next_random(state) % (MAX_DEPTH - MIN_DEPTH + 1));
  for (int i = 0; i < w->len; ++i) w->path[i] = (unsigned char)(next_random(state) % NFUNCS);
}

static int unique_mode;
static double seconds;

// CPU time of the calling thread: a loaded machine stretches the wall time, not the sample count.
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void* worker(void* arg) {
  uint64_t state = 0x9e3779b97f4a7c15ull + (uintptr_t)arg;
  struct walk hot[HOT_PATHS];
  uint64_t hot_state = 42;  // the same hot paths in every thread
  for (int i = 0; i < HOT_PATHS; ++i) {
    random_path(&hot[i], &hot_state);
    hot[i].spin = 20000;
  }
  struct walk fresh;
  fresh.spin = 600;
  unsigned long sink = 0;
  double end = now() + seconds;
  for (unsigned long round = 0;; ++round) {
    if ((round & 63) == 0 && now() >= end) break;
    const struct walk* w;
    if (unique_mode) {
      random_path(&fresh, &state);
      w = &fresh;
    } else {
      unsigned pick = (unsigned)(next_random(&state) % 100);
      w = &hot[pick < 60 ? 0 : 1 + pick % (HOT_PATHS - 1)];
    }
    sink += table[w->path[0]](w, 0);
  }
  return (void*)sink;
}

int main(int argc, char** argv) {
  if (argc < 3 || (strcmp(argv[1], "hot") != 0 && strcmp(argv[1], "unique") != 0)) {
    fprintf(stderr, "usage: deep_stacks hot|unique SECONDS [THREADS]\n");
    return 2;
  }
  unique_mode = strcmp(argv[1], "unique") == 0;
  seconds = atof(argv[2]);
  int threads = argc > 3 ? atoi(argv[3]) : 1;
  if (threads < 1 || threads > 64) threads = 1;
  fill_table();
  pthread_t ids[64];
  for (int i = 1; i < threads; ++i) pthread_create(&ids[i], NULL, worker, (void*)(uintptr_t)i);
  unsigned long sink = (unsigned long)worker(0);
  for (int i = 1; i < threads; ++i) {
    void* r;
    pthread_join(ids[i], &r);
    sink += (unsigned long)r;
  }
  return sink == 42 ? 1 : 0;
}
