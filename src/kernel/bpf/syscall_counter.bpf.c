// Counts system calls by number inside the kernel: one program on raw_syscalls:sys_enter (and
// sys_exit) instead of one perf event per syscalls:sys_enter_* tracepoint per CPU. Registering
// ~360 syscall tracepoints costs perf seconds; this registers two. Counts are per CPU so that
// per-CPU output (-A) and CPU lists (-C) come for free.
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#define MAX_SYSCALLS 512

// Task filter states: a task we follow starts counting at its exec, as perf's enable_on_exec.
#define TASK_PENDING_EXEC 1
#define TASK_COUNTING 2

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

const volatile __u8 filter_tasks = 0;  // 0: system wide (-a)
const volatile __u8 key_by_tid = 0;    // -t follows threads, not processes
const volatile __u32 fork_child_pid_offset = 20;  // from sched_process_fork's format file

struct sys_enter_args {
  __u64 common;
  long id;
  unsigned long args[6];
};

struct sys_exit_args {
  __u64 common;
  long id;
  long ret;
};

static __always_inline __u32 task_key(void) {
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  return key_by_tid ? (__u32)pid_tgid : (__u32)(pid_tgid >> 32);
}

static __always_inline int counted_task(void) {
  if (!filter_tasks) return 1;
  __u32 key = task_key();
  __u8* state = bpf_map_lookup_elem(&tasks, &key);
  return state && *state == TASK_COUNTING;
}

static __always_inline void count(__u32 which, long id) {
  if (id < 0 || id >= MAX_SYSCALLS) return;
  struct syscall_counts* c = bpf_map_lookup_elem(&counts, &which);
  if (c) c->count[id & (MAX_SYSCALLS - 1)]++;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int count_sys_enter(struct sys_enter_args* ctx) {
  if (counted_task()) count(0, ctx->id);
  return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int count_sys_exit(struct sys_exit_args* ctx) {
  if (counted_task()) count(1, ctx->id);
  return 0;
}

SEC("tracepoint/sched/sched_process_fork")
int follow_fork(void* ctx) {
  __u32 parent = task_key();
  __u8* state = bpf_map_lookup_elem(&tasks, &parent);
  if (!state) return 0;
  __s32 child = 0;
  bpf_probe_read_kernel(&child, sizeof child, (char*)ctx + fork_child_pid_offset);
  __u32 key = (__u32)child;
  __u8 value = *state;
  // A new thread shares its process's tgid, already followed unless we key by tid.
  if (key_by_tid || key != parent) bpf_map_update_elem(&tasks, &key, &value, BPF_ANY);
  return 0;
}

SEC("tracepoint/sched/sched_process_exec")
int follow_exec(void* ctx) {
  __u32 key = task_key();
  __u8* state = bpf_map_lookup_elem(&tasks, &key);
  if (state && *state == TASK_PENDING_EXEC) {
    __u8 counting = TASK_COUNTING;
    bpf_map_update_elem(&tasks, &key, &counting, BPF_ANY);
  }
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
