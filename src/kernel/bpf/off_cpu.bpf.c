// Off-CPU time: where threads block and for how long, as perf record --off-cpu measures it. One
// program on the sched_switch BTF tracepoint. When a traced thread leaves the CPU to sleep (S or
// D) or is preempted (runnable, state 0: perf leaves these out, sonde keeps them apart), it keeps
// the time, the state and the thread's kernel and user stacks (ids in a stack map) in task storage; when the thread comes back, the blocked time is sent at once as a
// sample through the offcpu-time perf event if it lasted at least the threshold, or added to the
// thread's total for that (stacks, state), which sonde writes as samples at the end (perf's way).
//
// Task selection works as in syscall_counter.bpf.c: traced tasks carry a mark (set on the held
// workload, from its exec on, or on -p/-t tasks) that follows forks; system-wide, every user task.
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "task_fields.h"

#include "off_cpu_event.h"

#define TASK_SYSTEM_WIDE 3

// What a task's storage keeps between its switch out and its switch back in.
struct task_block {
  __u64 start_ns;  // 0: not blocked (or not traced then)
  __s32 kernel_stack;
  __s32 user_stack;
  __u32 state;
  __u8 mark;
  __u8 reserved[3];
  // --wakers: who woke it, set at the wake-up, cleared at the next block
  __u32 waker_tid;
  __u32 waker_pid;
  __s32 waker_kernel_stack;
  __s32 waker_user_stack;
};

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct task_block);
} tasks SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_STACK_TRACE);
  __uint(max_entries, 16384);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, SONDE_OFF_CPU_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 65536);
  __type(key, struct off_cpu_key);
  __type(value, __u64);
} totals SEC(".maps");

// The offcpu-time event's fd on each CPU, set by sonde.
struct {
  __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, sizeof(__u32));
} samples SEC(".maps");

const volatile __u8 filter_tasks = 1;     // 0: system wide (-a)
const volatile __u8 follow_children = 1;  // 0: --no-inherit
const volatile __u8 filter_cpus = 0;
const volatile __u64 direct_threshold_ns = 500000000ULL;
const volatile __u8 cpus[1024 / 8] = {};

__u8 enabled = 0;  // set by sonde while recording
__u64 lost_totals = 0;
__u64 lost_samples = 0;
__u64 follow_failures = 0;
__u64 missed_blocks = 0;  // blocks not measured: no task storage, or a missed switch-in not placed

// The task's storage when its blocks are measured now.
static __always_inline struct task_block* traced_task(struct task_struct* task, int create) {
  if (!filter_tasks) {
    if (task->flags & PF_KTHREAD) return 0;  // no user stack: perf leaves kernel threads out
    struct task_block* block =
        bpf_task_storage_get(&tasks, task, 0, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
    // Made here the storage comes from an atomic allocation, which a busy machine can refuse.
    if (!block && create) __sync_fetch_and_add(&missed_blocks, 1);
    if (block && block->mark == 0) block->mark = TASK_SYSTEM_WIDE;
    return block;
  }
  struct task_block* block = bpf_task_storage_get(&tasks, task, 0, 0);
  return block && block->mark != TASK_PENDING_EXEC ? block : 0;
}

static __always_inline int cpu_selected(void) {
  if (!filter_cpus) return 1;
  __u32 cpu = bpf_get_smp_processor_id();
  return cpu < 1024 && (cpus[cpu / 8 & 127] & (1 << (cpu % 8)));
}

// A block of `task` has ended after `blocked` ns: a sample of its own if it lasted the threshold,
// else added to the task's total for its stacks and state.
static __always_inline void end_block(void* ctx, struct task_struct* task, struct task_block* block, __u64 blocked) {
  struct off_cpu_sample sample = {
      .key = {.tid = task->pid,
              .pid = task->tgid,
              .kernel_stack = block->kernel_stack,
              .user_stack = block->user_stack,
              .state = block->state,
              .waker_tid = block->waker_tid,
              .waker_pid = block->waker_tid ? block->waker_pid : 0,
              .waker_kernel_stack = block->waker_tid ? block->waker_kernel_stack : -1,
              .waker_user_stack = block->waker_tid ? block->waker_user_stack : -1},
      .blocked_ns = blocked,
  };
  if (blocked >= direct_threshold_ns) {
    if (bpf_perf_event_output(ctx, &samples, BPF_F_CURRENT_CPU, &sample, sizeof sample) != 0)
      __sync_fetch_and_add(&lost_samples, 1);
    return;
  }
  __u64* total = bpf_map_lookup_elem(&totals, &sample.key);
  if (total) {
    __sync_fetch_and_add(total, blocked);
  } else if (bpf_map_update_elem(&totals, &sample.key, &blocked, BPF_NOEXIST) != 0) {
    total = bpf_map_lookup_elem(&totals, &sample.key);
    if (total) __sync_fetch_and_add(total, blocked);
    else __sync_fetch_and_add(&lost_totals, 1);
  }
}

// sched_switch(bool preempt, struct task_struct *prev, struct task_struct *next,
//              unsigned int prev_state), run on the CPU, as prev, before the switch.
SEC("tp_btf/sched_switch")
int off_cpu_switch(__u64* ctx) {
  if (!enabled || !cpu_selected()) return 0;
  int preempt = (int)ctx[0];
  struct task_struct* prev = (struct task_struct*)ctx[1];
  struct task_struct* next = (struct task_struct*)ctx[2];
  __u32 state = (__u32)ctx[3] & 0xff;
  __u64 now = bpf_ktime_get_ns();

  // Asleep (S, D), or preempted: runnable and waiting for a CPU (state 0, TASK_RUNNING). A task
  // that is exiting or stopped is not waiting for anything.
  int sleeping = !preempt && (state == TASK_INTERRUPTIBLE || state == TASK_UNINTERRUPTIBLE);
  int blocking = sleeping || preempt || state == 0;
  struct task_block* prev_block = traced_task(prev, blocking);
  if (prev_block && prev_block->start_ns != 0) {
    // A kernel may switch a task in without the tracepoint (this one misses about one switch in
    // 400 under load, in perf's sched_switch events too), so its last block was not ended: it
    // ended when this turn on the CPU began, which the turn's CPU time tells.
    // (The fair class sets prev_sum_exec_runtime when it picks a task; for a real-time one the
    // difference is no turn, and the block is counted lost.)
    __u64 ran = prev->se.sum_exec_runtime - prev->se.prev_sum_exec_runtime;
    if (ran < now - prev_block->start_ns)
      end_block(ctx, prev, prev_block, now - ran - prev_block->start_ns);
    else
      __sync_fetch_and_add(&missed_blocks, 1);
    prev_block->start_ns = 0;
  }
  if (blocking) {
    if (!sleeping) state = 0;
    struct task_block* block = prev_block;
    if (block) {
      // The stacks as they are now, prev's own: the kernel's from the scheduler down (the
      // program and the tracepoint's glue, two frames, left out), the user's from its registers.
      block->kernel_stack = bpf_get_stackid(ctx, &stacks, (2 & BPF_F_SKIP_FIELD_MASK) | BPF_F_FAST_STACK_CMP);
      block->user_stack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP);
      block->state = state;
      block->waker_tid = 0;
      block->start_ns = now;
    }
  }

  struct task_block* block = traced_task(next, 0);
  if (!block || block->start_ns == 0) return 0;
  __u64 blocked = now - block->start_ns;
  block->start_ns = 0;
  end_block(ctx, next, block, blocked);
  return 0;
}

// sched_waking(struct task_struct *p), run by the waker (or in the interrupt that wakes p): with
// --wakers, a blocked traced thread keeps who woke it and their stacks, as offwaketime does.
SEC("tp_btf/sched_waking")
int off_cpu_waking(__u64* ctx) {
  if (!enabled) return 0;
  struct task_struct* wakee = (struct task_struct*)ctx[0];
  struct task_block* block = bpf_task_storage_get(&tasks, wakee, 0, 0);
  if (!block || block->start_ns == 0 || block->waker_tid) return 0;
  struct task_struct* waker = bpf_get_current_task_btf();
  block->waker_kernel_stack = bpf_get_stackid(ctx, &stacks, (2 & BPF_F_SKIP_FIELD_MASK) | BPF_F_FAST_STACK_CMP);
  block->waker_user_stack =
      waker->flags & PF_KTHREAD ? -1 : bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP);
  block->waker_pid = waker->tgid;
  block->waker_tid = waker->pid ? waker->pid : 0xffffffff;  // the idle task is pid 0
  return 0;
}

// sched_process_fork(struct task_struct *parent, struct task_struct *child), run by the parent.
SEC("tp_btf/sched_process_fork")
int off_cpu_fork(__u64* ctx) {
  if (!follow_children) return 0;
  struct task_struct* parent = (struct task_struct*)ctx[0];
  struct task_struct* child = (struct task_struct*)ctx[1];
  struct task_block* block = bpf_task_storage_get(&tasks, parent, 0, 0);
  if (!block || (block->mark != TASK_FOLLOWED && block->mark != TASK_PENDING_EXEC)) return 0;
  struct task_block* child_block = bpf_task_storage_get(&tasks, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (child_block) child_block->mark = block->mark;
  else __sync_fetch_and_add(&follow_failures, 1);
  return 0;
}

// sched_process_exec, run by the task that has just exec'd: the held workload starts counting.
SEC("tp_btf/sched_process_exec")
int off_cpu_exec(__u64* ctx) {
  (void)ctx;
  struct task_block* block = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);
  if (block && block->mark == TASK_PENDING_EXEC) block->mark = TASK_FOLLOWED;
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
