// Counts system calls by number inside the kernel: one program on the raw sys_enter (and
// sys_exit) tracepoint instead of one perf event per syscalls:sys_enter_* tracepoint per CPU.
// Registering ~360 syscall tracepoints costs perf seconds; this registers two. Raw tracepoints
// also detach without waiting for an RCU grace period, unlike perf-event tracepoints. Counts
// are per CPU so that per-CPU output (-A) and CPU lists (-C) come for free.
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#define MAX_SYSCALLS 512

// Task filter states: a task we follow starts counting at its exec, as perf's enable_on_exec.
#define TASK_PENDING_EXEC 1
#define TASK_COUNTING 2

// Just the kernel fields read here; CO-RE relocates them against the running kernel's BTF.
struct pt_regs___sonde {
  unsigned long orig_ax;
} __attribute__((preserve_access_index));

struct thread_info___sonde {
  __u32 status;
} __attribute__((preserve_access_index));

struct signal_struct___sonde {
  struct {
    int counter;
  } live;
} __attribute__((preserve_access_index));

struct task_struct___sonde {
  struct thread_info___sonde thread_info;
  int pid;
  struct signal_struct___sonde* signal;
} __attribute__((preserve_access_index));

#define TS_COMPAT 0x0002  // x86: the task is in a 32-bit (ia32) system call

struct syscall_counts {
  __u64 count[MAX_SYSCALLS];
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 2);  // 0: sys_enter, 1: sys_exit
  __type(key, __u32);
  __type(value, struct syscall_counts);
} counts SEC(".maps");

// The tasks followed, keyed by tgid (or by tid when key_by_tid): workload, -p, -t and
// everything they fork.
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 65536);
  __type(key, __u32);
  __type(value, __u8);
} tasks SEC(".maps");

const volatile __u8 filter_tasks = 0;     // 0: system wide (-a)
const volatile __u8 key_by_tid = 0;       // -t follows threads, not processes
const volatile __u8 follow_children = 1;  // 0 for -i/--no-inherit
// sched_process_exit(p, group_dead) on newer kernels, (p) on older ones, where signal->live has
// already dropped to zero when the last thread exits.
const volatile __u8 exit_has_group_dead = 0;

// Tasks that could not be followed because the map was full: the counts would be low.
__u64 follow_failures = 0;

static __always_inline __u32 task_key(void) {
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  return key_by_tid ? (__u32)pid_tgid : (__u32)(pid_tgid >> 32);
}

static __always_inline int counted_task(void) {
  // The syscalls tracepoints ignore ia32 calls (trace_get_syscall_nr gives -1); so do we.
  struct task_struct___sonde* task = (struct task_struct___sonde*)bpf_get_current_task();
  if (bpf_core_field_exists(task->thread_info.status) && (BPF_CORE_READ(task, thread_info.status) & TS_COMPAT))
    return 0;
  if (!filter_tasks) return 1;
  __u32 key = task_key();
  __u8* state = bpf_map_lookup_elem(&tasks, &key);
  return state && *state == TASK_COUNTING;
}

static __always_inline void count(__u32 which, long id) {
  // x32 calls carry bit 30 and land outside the table, as the syscalls tracepoints ignore them.
  if (id < 0 || id >= MAX_SYSCALLS) return;
  struct syscall_counts* c = bpf_map_lookup_elem(&counts, &which);
  if (c) c->count[id & (MAX_SYSCALLS - 1)]++;
}

// sys_enter(struct pt_regs *regs, long id)
SEC("raw_tracepoint/sys_enter")
int count_sys_enter(struct bpf_raw_tracepoint_args* ctx) {
  if (counted_task()) count(0, (long)ctx->args[1]);
  return 0;
}

// sys_exit(struct pt_regs *regs, long ret): the number is in orig_ax, as syscall_get_nr reads it.
SEC("raw_tracepoint/sys_exit")
int count_sys_exit(struct bpf_raw_tracepoint_args* ctx) {
  if (!counted_task()) return 0;
  struct pt_regs___sonde* regs = (struct pt_regs___sonde*)ctx->args[0];
  count(1, (long)BPF_CORE_READ(regs, orig_ax));
  return 0;
}

// sched_process_fork(struct task_struct *parent, struct task_struct *child), run by the parent.
SEC("raw_tracepoint/sched_process_fork")
int follow_fork(struct bpf_raw_tracepoint_args* ctx) {
  if (!follow_children) return 0;
  __u32 parent = task_key();
  __u8* state = bpf_map_lookup_elem(&tasks, &parent);
  if (!state) return 0;
  struct task_struct___sonde* child = (struct task_struct___sonde*)ctx->args[1];
  __u32 key = (__u32)BPF_CORE_READ(child, pid);
  __u8 value = *state;
  // A new thread shares its process's tgid, already followed unless we key by tid.
  if ((key_by_tid || key != parent) && bpf_map_update_elem(&tasks, &key, &value, BPF_ANY) != 0)
    __sync_fetch_and_add(&follow_failures, 1);
  return 0;
}

// A task leaving forgets its entry, so that a recycled pid is not counted as ours.
SEC("raw_tracepoint/sched_process_exit")
int forget_exit(struct bpf_raw_tracepoint_args* ctx) {
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  __u32 key = key_by_tid ? (__u32)pid_tgid : (__u32)(pid_tgid >> 32);
  if (!key_by_tid) {
    int group_dead;
    if (exit_has_group_dead) {
      group_dead = (int)ctx->args[1];
    } else {
      struct task_struct___sonde* task = (struct task_struct___sonde*)bpf_get_current_task();
      group_dead = BPF_CORE_READ(task, signal, live.counter) == 0;
    }
    if (!group_dead) return 0;
  }
  bpf_map_delete_elem(&tasks, &key);
  return 0;
}

// sched_process_exec, run by the task that has just exec'd.
SEC("raw_tracepoint/sched_process_exec")
int follow_exec(struct bpf_raw_tracepoint_args* ctx) {
  (void)ctx;
  __u32 key = task_key();
  __u8* state = bpf_map_lookup_elem(&tasks, &key);
  if (state && *state == TASK_PENDING_EXEC) {
    __u8 counting = TASK_COUNTING;
    bpf_map_update_elem(&tasks, &key, &counting, BPF_ANY);
  }
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
