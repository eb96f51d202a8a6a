// Lock contention measured in the kernel (perf lock contention -b): contention_begin keeps the
// waiting thread's start time, lock and kernel stack; contention_end adds the wait to a total per
// stack (or per thread), so nothing crosses to user space until the end. One wait per thread is
// tracked: a nested begin (a lock taken while waiting for another, in the slow path) keeps the
// first, as perf does.
//
// The threads traced carry a mark in task-local storage (the workload from its exec, -p/--tid
// tasks, what they fork); system wide, every thread is.
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "lock_contention_event.h"
#include "follow_tasks.h"
#include "task_fields.h"

struct lock_wait {
  __u64 start_ns;
  __u64 lock;
  __u32 flags;
  __s32 stack_id;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16384);
  __type(key, __u32);  // tid
  __type(value, struct lock_wait);
} waits SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_STACK_TRACE);
  __uint(max_entries, 10240);  // -M sets it
  __uint(key_size, sizeof(__u32));
  __uint(value_size, SONDE_LOCK_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 10240);  // -M sets it
  __type(key, struct lock_contention_key);
  __type(value, struct lock_contention_total);
} totals SEC(".maps");


const volatile __u8 filter_tasks = 0;     // 0: system wide (-a)
const volatile __u8 by_task = 0;          // -t: totals per thread
const volatile __u32 stack_skip = 3;      // --stack-skip: the program's own frames and the tracepoint's
const volatile __u8 filter_cpus = 0;      // -C
const volatile __u8 cpus[1024 / 8] = {};

__u64 lost_waits = 0;   // begins with no room to keep them
__u64 lost_stacks = 0;  // stacks the stack map had no room for
__u64 lost_totals = 0;  // totals the map had no room for

static __always_inline int traced(void) {
  if (filter_cpus) {
    __u32 cpu = bpf_get_smp_processor_id();
    if (cpu >= 1024 || !(cpus[cpu / 8 & 127] & (1 << (cpu % 8)))) return 0;
  }
  if (!filter_tasks) return 1;
  __u8* mark = bpf_task_storage_get(&task_marks, bpf_get_current_task_btf(), 0, 0);
  return mark && *mark == TASK_FOLLOWED;
}

// contention_begin(void *lock, unsigned int flags)
SEC("tp_btf/contention_begin")
int contention_begin(__u64* ctx) {
  if (!traced()) return 0;
  __u32 tid = (__u32)bpf_get_current_pid_tgid();
  struct lock_wait* wait = bpf_map_lookup_elem(&waits, &tid);
  if (wait && wait->lock) return 0;  // nested: the first wait's start stays
  struct lock_wait fresh = {
      .start_ns = bpf_ktime_get_ns(),
      .lock = ctx[0],
      .flags = (__u32)ctx[1],
      .stack_id = -1,
  };
  if (!by_task) {
    fresh.stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_FAST_STACK_CMP | (stack_skip & BPF_F_SKIP_FIELD_MASK));
    if (fresh.stack_id < 0) __sync_fetch_and_add(&lost_stacks, 1);
  }
  if (bpf_map_update_elem(&waits, &tid, &fresh, BPF_ANY) != 0) __sync_fetch_and_add(&lost_waits, 1);
  return 0;
}

// contention_end(void *lock, int ret)
SEC("tp_btf/contention_end")
int contention_end(__u64* ctx) {
  __u32 tid = (__u32)bpf_get_current_pid_tgid();
  struct lock_wait* wait = bpf_map_lookup_elem(&waits, &tid);
  if (!wait || wait->lock != ctx[0]) return 0;
  __u64 waited = bpf_ktime_get_ns() - wait->start_ns;
  struct lock_contention_key key = {.id = by_task ? tid : (__u64)(__s64)wait->stack_id};
  __u32 flags = wait->flags;
  int stack_id = wait->stack_id;
  bpf_map_delete_elem(&waits, &tid);
  if (!by_task && stack_id < 0) return 0;
  struct lock_contention_total* total = bpf_map_lookup_elem(&totals, &key);
  if (!total) {
    struct lock_contention_total first = {
        .total_ns = waited, .min_ns = waited, .max_ns = waited, .count = 1, .flags = flags};
    if (by_task) bpf_get_current_comm(first.comm, sizeof first.comm);
    if (bpf_map_update_elem(&totals, &key, &first, BPF_NOEXIST) == 0) return 0;
    total = bpf_map_lookup_elem(&totals, &key);
    if (!total) {
      __sync_fetch_and_add(&lost_totals, 1);
      return 0;
    }
  }
  __sync_fetch_and_add(&total->total_ns, waited);
  __sync_fetch_and_add(&total->count, 1);
  // Races between CPUs can lose an extreme; perf's program has the same.
  if (waited > total->max_ns) total->max_ns = waited;
  if (waited < total->min_ns) total->min_ns = waited;
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
