/* What the BPF lock contention tracer shares with sonde: the key and value of its totals. Plain C,
 * included by the BPF program and by kernel/lock_contention_tracer. */
#ifndef SONDE_LOCK_CONTENTION_EVENT_H
#define SONDE_LOCK_CONTENTION_EVENT_H

#include <linux/types.h>

#define SONDE_LOCK_STACK_DEPTH 16 /* kernel frames kept per contention (perf's --max-stack limit) */

/* Waits are totalled by the contending kernel stack (a stack-map id) or, with -t, by thread. */
struct lock_contention_key {
  __u64 id;
};

struct lock_contention_total {
  __u64 total_ns;
  __u64 min_ns;
  __u64 max_ns;
  __u32 count;
  __u32 flags;   /* contention_begin's flags: the lock's type */
  char comm[16]; /* with -t: the thread's name at its first wait (it may be gone by the end) */
};

#endif
