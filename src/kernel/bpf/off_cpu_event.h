/* The records the BPF off-CPU profiler shares with sonde: the sample it sends at once for a long
 * block, and the key and value of the totals it keeps for short ones. Plain C, included by the
 * BPF program and by kernel/off_cpu_profiler. */
#ifndef SONDE_OFF_CPU_EVENT_H
#define SONDE_OFF_CPU_EVENT_H

#include <linux/types.h>

#define SONDE_OFF_CPU_STACK_DEPTH 127 /* frames kept per stack, perf's PERF_MAX_STACK_DEPTH */

/* A thread's block: who, where (stack-map ids, negative when the stack could not be kept), in
 * which state it slept (TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE), and for how long. */
struct off_cpu_key {
  __u32 tid;
  __u32 pid;
  __s32 kernel_stack;
  __s32 user_stack;
  __u32 state;
  /* With --wakers: the thread that woke it and its stacks where it did (ids as above; the
   * waker's tid 0 when not recorded). */
  __u32 waker_tid;
  __u32 waker_pid;
  __s32 waker_kernel_stack;
  __s32 waker_user_stack;
  __u32 reserved;
};

/* Sent through the offcpu-time perf event at the switch back in, when the block lasted at least
 * the threshold: the perf sample that carries it gives the time and the CPU. */
struct off_cpu_sample {
  struct off_cpu_key key;
  __u64 blocked_ns;
};

#endif
