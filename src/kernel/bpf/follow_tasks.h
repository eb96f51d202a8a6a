/* The marks of the tasks a BPF program follows (task storage of one byte: the workload from its
 * exec, -p/-t tasks) and the two programs that carry a mark to what a task forks and from a held
 * workload's exec on. Included once by each program that follows tasks this way. */
#ifndef SONDE_FOLLOW_TASKS_H
#define SONDE_FOLLOW_TASKS_H

#include "task_fields.h"

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, __u8);
} task_marks SEC(".maps");

const volatile __u8 follow_children = 1;  // 0 for -i/--no-inherit

// New tasks that could not be marked (out of memory): their events would be missing.
__u64 follow_failures = 0;

// sched_process_fork(struct task_struct *parent, struct task_struct *child), run by the parent.
SEC("tp_btf/sched_process_fork")
int follow_fork(__u64* ctx) {
  if (!follow_children) return 0;
  struct task_struct* parent = (struct task_struct*)ctx[0];
  struct task_struct* child = (struct task_struct*)ctx[1];
  __u8* mark = bpf_task_storage_get(&task_marks, parent, 0, 0);
  if (!mark) return 0;
  __u8* child_mark = bpf_task_storage_get(&task_marks, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (child_mark) *child_mark = *mark;
  else __sync_fetch_and_add(&follow_failures, 1);
  return 0;
}

// sched_process_exec, run by the task that has just exec'd.
SEC("tp_btf/sched_process_exec")
int follow_exec(__u64* ctx) {
  (void)ctx;
  __u8* mark = bpf_task_storage_get(&task_marks, bpf_get_current_task_btf(), 0, 0);
  if (mark && *mark == TASK_PENDING_EXEC) *mark = TASK_FOLLOWED;
  return 0;
}

#endif
