// Counts system calls by number inside the kernel: one program on the sys_enter (and sys_exit)
// tracepoint instead of one perf event per syscalls:sys_enter_* tracepoint per CPU. Registering
// ~360 syscall tracepoints costs perf seconds; this registers two. BTF raw tracepoints (tp_btf)
// detach without an RCU grace period and read kernel structures with plain loads. Counts are per
// CPU so that per-CPU output (-A) and CPU lists (-C) come for free.
//
// The tasks counted carry a mark in task-local storage: set on the workload (from its exec, as
// perf's enable_on_exec) or on -p/-t tasks, and copied to every task they fork. The mark lives
// and dies with the task, so a recycled pid is never mistaken for one of ours.
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "follow_tasks.h"
#include "task_fields.h"

#define MAX_SYSCALLS 512



struct syscall_counts {
  __u64 count[MAX_SYSCALLS];
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 2);  // 0: sys_enter, 1: sys_exit
  __type(key, __u32);
  __type(value, struct syscall_counts);
} counts SEC(".maps");


const volatile __u8 filter_tasks = 0;     // 0: system wide (-a)


static __always_inline int counted(struct task_struct* task) {
  // The syscalls tracepoints ignore ia32 calls (trace_get_syscall_nr gives -1); so do we.
  if (task->thread_info.status & TS_COMPAT) return 0;
  if (!filter_tasks) return 1;
  __u8* mark = bpf_task_storage_get(&task_marks, task, 0, 0);
  return mark && *mark == TASK_FOLLOWED;
}

static __always_inline void count(__u32 which, long id) {
  // x32 calls carry bit 30 and land outside the table, as the syscalls tracepoints ignore them.
  if (id < 0 || id >= MAX_SYSCALLS) return;
  struct syscall_counts* c = bpf_map_lookup_elem(&counts, &which);
  if (c) c->count[id & (MAX_SYSCALLS - 1)]++;
}

// sys_enter(struct pt_regs *regs, long id)
SEC("tp_btf/sys_enter")
int count_sys_enter(__u64* ctx) {
  if (counted(bpf_get_current_task_btf())) count(0, (long)ctx[1]);
  return 0;
}

// sys_exit(struct pt_regs *regs, long ret): the number is in orig_ax, as syscall_get_nr reads it.
SEC("tp_btf/sys_exit")
int count_sys_exit(__u64* ctx) {
  if (!counted(bpf_get_current_task_btf())) return 0;
  struct pt_regs___sonde* regs = (struct pt_regs___sonde*)ctx[0];
  count(1, (long)regs->orig_ax);
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
