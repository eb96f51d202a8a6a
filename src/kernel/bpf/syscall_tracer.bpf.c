// Traces system calls inside the kernel: pairs each sys_enter with its sys_exit in task-local
// storage, aggregates calls, errors and durations per (thread, syscall) in maps, and copies
// completed calls with their arguments (and the path names read at entry) to a ring buffer.
// Summary-only runs copy nothing per call. perf trace instead wakes up for every event.
//
// Task selection works as in syscall_counter.bpf.c: traced tasks carry a mark (set on the held
// workload, from its exec on, or on -p/-t tasks) that follows forks. The mark and the call in
// flight share one task-storage value, so a traced syscall costs one storage lookup per side.
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/types.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "task_fields.h"

#include "syscall_trace_event.h"
#include "syscall_trace_strings.h"

#define TASK_SYSTEM_WIDE 3 /* storage made for a task of a system-wide trace */

#define NR_RT_SIGRETURN 15
#define NR_EXIT 60
#define NR_EXIT_GROUP 231
#define NR_CLONE 56
#define NR_FORK 57
#define NR_VFORK 58
#define NR_CLONE3 435


struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct syscall_trace_event);
} tasks SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 16 << 20); /* set by sonde before load */
} events SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 65536);
  __type(key, struct syscall_stats_key);
  __type(value, struct syscall_stats_value);
} stats SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 16384);
  __type(key, struct syscall_errno_key);
  __type(value, __u64);
} errnos SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 65536);
  __type(key, __u32);
  __type(value, char[16]);
} comms SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1024);
  __type(key, __u32);
  __type(value, __u8);
} excluded_pids SEC(".maps");

// Per-CPU room to assemble an event for the ring buffer.
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct syscall_trace_event);
} scratch SEC(".maps");

const volatile __u8 filter_tasks = 1;     // 0: system wide (-a)
const volatile __u8 follow_children = 1;  // 0: --no-inherit
const volatile __u8 copy_events = 1;      // 0: summary only
const volatile __u8 keep_stats = 1;
const volatile __u8 keep_errnos = 0;
const volatile __u8 failures_only = 0;
const volatile __u8 user_stacks = 0;    // --call-graph fp
const volatile __u8 dwarf_stacks = 0;   // --call-graph dwarf
const volatile __u8 kernel_stacks = 0;  // --kernel-syscall-graph
const volatile __u8 count_child_fork_returns = 1;  // 0 for strace -c's counts
const volatile __u8 filter_cpus = 0;
const volatile __u8 filter_uid = 0;
const volatile __u8 exclude_pids = 0;
const volatile __u32 uid = 0;
const volatile __u64 min_duration_ns = 0;
// perf prints a call's entry alone (" ...") when another traced thread enters a call, or a
// traced tracepoint fires, before the call returns; its exit then prints as "... [continued]".
const volatile __u8 split_on_enter = 0;       // not with --duration or --failure
const volatile __u8 split_on_tracepoint = 0;  // not with --failure
const volatile __u64 wakeup_bytes = 256 << 10;
const volatile __u8 selected[SONDE_TRACE_MAX_SYSCALLS] = {};
const volatile __u8 string_masks[SONDE_TRACE_MAX_SYSCALLS] = {};  // bit i: read argument i
const volatile __u8 cpus[SONDE_TRACE_MAX_CPUS / 8] = {};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct tracepoint_trace_event);
} tracepoint_scratch SEC(".maps");

// Bytes of each tracepoint's fixed record, by its id (common_type); more is copied when it fits.
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 256);
  __type(key, __u32);
  __type(value, __u32);
} tracepoint_sizes SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 65536);
  __type(key, __u32);
  __type(value, struct fault_counts);
} faults SEC(".maps");

// --call-graph dwarf's events are built here: too big for task storage.
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct syscall_trace_event_dwarf);
} dwarf_scratch SEC(".maps");

__u64 lost_events = 0;
// When the first selected call entered (or, with no entry seen, ended): times count from it, as
// perf's count from its first event whatever --failure and --duration then print.
__u64 first_ns = 0;
__u64 lost_stats = 0;
__u64 follow_failures = 0;
// The traced thread whose call entered last, perf's "current" thread: its entry is what the next
// event interrupts. Written only when another thread enters, so one thread's calls share it read-only.
__u32 current_tid = 0;

extern struct task_struct* bpf_task_from_pid(__s32 pid) __ksym;
extern void bpf_task_release(struct task_struct* task) __ksym;

static __always_inline int compat_call(struct task_struct* task) {
  return task->thread_info.status & TS_COMPAT;
}

// The task's storage when its calls are traced now (or, for a held workload, its exec call).
static __always_inline struct syscall_trace_event* traced_task(struct task_struct* task, int create) {
  if (!filter_tasks) {
    if (exclude_pids) {
      __u32 pid = bpf_get_current_pid_tgid() >> 32;
      if (bpf_map_lookup_elem(&excluded_pids, &pid)) return 0;
    }
    if (filter_uid && (__u32)bpf_get_current_uid_gid() != uid) return 0;
    if (filter_cpus) {
      __u32 cpu = bpf_get_smp_processor_id();
      if (cpu >= SONDE_TRACE_MAX_CPUS || !(cpus[cpu / 8 & (SONDE_TRACE_MAX_CPUS / 8 - 1)] & (1 << (cpu % 8))))
        return 0;
    }
    struct syscall_trace_event* state =
        bpf_task_storage_get(&tasks, task, 0, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
    if (state && state->mark == 0) state->mark = TASK_SYSTEM_WIDE;
    return state;
  }
  return bpf_task_storage_get(&tasks, task, 0, 0);
}

// Copies a record to the ring buffer, waking the reader only when a good amount has gathered
// (it also drains on a timer); a full ring counts the record as lost.
static __always_inline void emit(void* record, __u64 size) {
  __u64 flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
  if (bpf_ringbuf_output(&events, record, size, flags) != 0) __sync_fetch_and_add(&lost_events, 1);
}

static __always_inline void copy_event(struct syscall_trace_event* state);

// The bytes of a call's record worth copying: the fixed part and the strings used.
static __always_inline __u32 call_record_size(struct syscall_trace_event* state) {
  __u32 size = offsetof(struct syscall_trace_event, strings);
  if (state->string_length[1])
    size += SONDE_TRACE_STRING_SIZE + (state->string_length[1] & (SONDE_TRACE_STRING_SIZE - 1));
  else if (state->string_length[0])
    size += state->string_length[0] & (2 * SONDE_TRACE_STRING_SIZE - 1);
  if (size > sizeof(struct syscall_trace_event)) size = sizeof(struct syscall_trace_event);
  return size;
}

// Prints the current thread's pending entry, as perf does when another event comes before the
// call's exit: a global function, so that the verifier walks it once rather than once for every
// path of its callers. The interrupted task's storage is reached through its pid, its own (a
// tracepoint inside its call) directly.
__noinline int interrupt_current(__u32 self_tid) {
  __u32 tid = current_tid;
  if (!tid) return 0;
  current_tid = 0;
  struct task_struct* other = 0;
  struct task_struct* task = bpf_get_current_task_btf();
  if (tid != self_tid) {
    other = bpf_task_from_pid(tid);
    if (!other) return 0;
    task = other;
  }
  struct syscall_trace_event* state = bpf_task_storage_get(&tasks, task, 0, 0);
  __u32 zero = 0;
  struct syscall_trace_event* event = bpf_map_lookup_elem(&scratch, &zero);
  if (state && event &&
      __sync_val_compare_and_swap(&state->entry_state, SONDE_ENTRY_PENDING, SONDE_ENTRY_PRINTED) ==
          SONDE_ENTRY_PENDING &&
      bpf_probe_read_kernel(event, offsetof(struct syscall_trace_event, user_stack), state) == 0) {
    event->kind = SONDE_TRACE_KIND_SYSCALL;
    event->user_frames = event->kernel_frames = 0;
    event->flags |= SONDE_TRACE_UNFINISHED;
    event->exit_ns = event->enter_ns;
    event->ret = 0;
    event->pid = BPF_CORE_READ(task, tgid);
    event->tid = BPF_CORE_READ(task, pid);
    event->cpu = bpf_get_smp_processor_id();
    BPF_CORE_READ_STR_INTO(&event->comm, task, comm);
    emit(event, call_record_size(event));
  }
  if (other) bpf_task_release(other);
  return 0;
}

// sys_enter(struct pt_regs *regs, long id)
SEC("tp_btf/sys_enter")
int trace_sys_enter(__u64* ctx) {
  struct task_struct* task = bpf_get_current_task_btf();
  long nr = (long)ctx[1];
  if (nr < 0 || nr >= SONDE_TRACE_MAX_SYSCALLS || compat_call(task)) return 0;
  struct syscall_trace_event* state = traced_task(task, 1);
  if (!state) return 0;
  if (state->mark == TASK_PENDING_EXEC) {
    // The held workload's own exec: kept so that its exit, traced after the exec, is complete.
    if (nr != NR_EXECVE && nr != NR_EXECVEAT) return 0;
  } else if (state->mark != TASK_FOLLOWED && state->mark != TASK_SYSTEM_WIDE) {
    return 0;
  }
  if (!selected[nr & (SONDE_TRACE_MAX_SYSCALLS - 1)]) {
    state->enter_ns = 0;
    return 0;
  }
  if (split_on_enter) {
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    if (current_tid != tid) {
      interrupt_current(tid);
      current_tid = tid;
    }
  }
  if (split_on_tracepoint) state->entry_state = SONDE_ENTRY_PENDING;
  state->nr = nr;
  state->flags = 0;
  state->string_length[0] = state->string_length[1] = 0;
  if (copy_events) {
    // x86-64 syscall arguments: di, si, dx, r10, r8, r9 (a summary needs none of them)
    struct pt_regs___sonde* regs = (struct pt_regs___sonde*)ctx[0];
    state->args[0] = regs->di;
    state->args[1] = regs->si;
    state->args[2] = regs->dx;
    state->args[3] = regs->r10;
    state->args[4] = regs->r8;
    state->args[5] = regs->r9;
    __u8 mask = string_masks[nr & (SONDE_TRACE_MAX_SYSCALLS - 1)];
    if (mask) read_strings(state, mask);
  }
  state->enter_ns = bpf_ktime_get_ns();
  if (!first_ns) __sync_val_compare_and_swap(&first_ns, 0, state->enter_ns);
  int shown_at_entry = nr == NR_EXIT || nr == NR_EXIT_GROUP || nr == NR_RT_SIGRETURN;
  // Tested here, late, not where the entry state is set: a test of nr early splits every path
  // the verifier walks after it.
  if (shown_at_entry) state->entry_state = SONDE_ENTRY_NONE;
  if (copy_events && shown_at_entry && !failures_only && min_duration_ns == 0) {
    // These never return (rt_sigreturn's exit carries no syscall number): the call is shown at
    // its entry, as perf shows it.
    __u64 pid_tgid = bpf_get_current_pid_tgid();
    state->exit_ns = state->enter_ns;
    state->ret = 0;
    state->flags |= nr == NR_RT_SIGRETURN ? SONDE_TRACE_UNFINISHED : SONDE_TRACE_NO_RETURN;
    state->pid = pid_tgid >> 32;
    state->tid = (__u32)pid_tgid;
    state->cpu = bpf_get_smp_processor_id();
    bpf_get_current_comm(state->comm, sizeof state->comm);
    copy_event(state);
  }
  return 0;
}

static __always_inline void add_stats(__u32 tid, long nr, __u64 duration, long ret) {
  struct syscall_stats_key key = {.tid = tid, .nr = nr};
  struct syscall_stats_value* value = bpf_map_lookup_elem(&stats, &key);
  if (!value) {
    struct syscall_stats_value fresh = {.min_ns = ~0ULL};
    if (bpf_map_update_elem(&stats, &key, &fresh, BPF_NOEXIST) != 0 && bpf_map_lookup_elem(&stats, &key) == 0) {
      __sync_fetch_and_add(&lost_stats, 1);
      return;
    }
    value = bpf_map_lookup_elem(&stats, &key);
    if (!value) return;
    char comm[16];
    bpf_get_current_comm(comm, sizeof comm);
    bpf_map_update_elem(&comms, &tid, comm, BPF_ANY);
  }
  // One thread runs one call at a time, so its rows need no atomics.
  value->calls++;
  int failed = ret < 0 && ret >= -4095;
  if (failed) value->errors++;
  value->total_ns += duration;
  if (duration < value->min_ns) value->min_ns = duration;
  if (duration > value->max_ns) value->max_ns = duration;
  __u64 scaled = duration >> 4;
  if (scaled > 0xffffffffULL) scaled = 0xffffffffULL;
  __u64 square = scaled * scaled;
  __u64 low = value->squares_low + square;
  if (low < square) value->squares_high++;
  value->squares_low = low;
  if (failed && keep_errnos) {
    struct syscall_errno_key errno_key = {.tid = tid, .nr = nr, .err = (__s32)-ret};
    __u64* count = bpf_map_lookup_elem(&errnos, &errno_key);
    if (count) {
      (*count)++;
    } else {
      __u64 one = 1;
      if (bpf_map_update_elem(&errnos, &errno_key, &one, BPF_NOEXIST) != 0) {
        count = bpf_map_lookup_elem(&errnos, &errno_key);
        if (count) (*count)++;
        else __sync_fetch_and_add(&lost_stats, 1);
      }
    }
  }
}

static __always_inline void copy_event(struct syscall_trace_event* state) {
  // with call graphs, the strings and stacks whole
  emit(state, user_stacks || kernel_stacks ? sizeof(struct syscall_trace_event) : call_record_size(state));
}

// The call with the user registers and stack for --call-graph dwarf, as perf's
// PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER would give them.
static __always_inline void copy_dwarf_event(struct syscall_trace_event* state, struct pt_regs___sonde* regs) {
  __u32 zero = 0;
  struct syscall_trace_event_dwarf* event = bpf_map_lookup_elem(&dwarf_scratch, &zero);
  if (!event) return;
  if (bpf_probe_read_kernel(&event->call, sizeof event->call, state) != 0) return;
  event->call.kind = SONDE_TRACE_KIND_SYSCALL_DWARF;
  event->regs[0] = regs->ax;
  event->regs[1] = regs->bx;
  event->regs[2] = regs->cx;
  event->regs[3] = regs->dx;
  event->regs[4] = regs->si;
  event->regs[5] = regs->di;
  event->regs[6] = regs->bp;
  event->regs[7] = regs->sp;
  event->regs[8] = regs->ip;
  event->regs[9] = regs->r8;
  event->regs[10] = regs->r9;
  event->regs[11] = regs->r10;
  event->regs[12] = regs->r11;
  event->regs[13] = regs->r12;
  event->regs[14] = regs->r13;
  event->regs[15] = regs->r14;
  event->regs[16] = regs->r15;
  // The whole copy first; near the top of the stack the pages above may not exist, so less.
  __u64 size = SONDE_TRACE_DWARF_STACK;
  const void* sp = (const void*)regs->sp;
  if (bpf_probe_read_user(event->stack, SONDE_TRACE_DWARF_STACK, sp) != 0) {
    size = SONDE_TRACE_DWARF_STACK / 2;
    if (bpf_probe_read_user(event->stack, SONDE_TRACE_DWARF_STACK / 2, sp) != 0) {
      size = SONDE_TRACE_DWARF_STACK / 8;
      if (bpf_probe_read_user(event->stack, SONDE_TRACE_DWARF_STACK / 8, sp) != 0) size = 0;
    }
  }
  event->stack_size = size;
  __u64 length = sizeof *event - SONDE_TRACE_DWARF_STACK + size;
  if (length > sizeof *event) length = sizeof *event;
  emit(event, length);
}

// sys_exit(struct pt_regs *regs, long ret): the number is in orig_ax, as syscall_get_nr reads it.
SEC("tp_btf/sys_exit")
int trace_sys_exit(__u64* ctx) {
  struct task_struct* task = bpf_get_current_task_btf();
  if (compat_call(task)) return 0;
  struct pt_regs___sonde* regs = (struct pt_regs___sonde*)ctx[0];
  long nr = (long)regs->orig_ax;
  if (nr < 0 || nr >= SONDE_TRACE_MAX_SYSCALLS || !selected[nr & (SONDE_TRACE_MAX_SYSCALLS - 1)]) return 0;
  struct syscall_trace_event* state = traced_task(task, 0);
  if (!state || (state->mark != TASK_FOLLOWED && state->mark != TASK_SYSTEM_WIDE)) {
    if (state) {  // a held workload whose exec failed: not traced yet
      state->enter_ns = 0;
      state->entry_state = SONDE_ENTRY_NONE;
    }
    return 0;
  }
  long ret = (long)ctx[1];
  __u64 now = bpf_ktime_get_ns();
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  int continued = state->enter_ns == 0 || state->nr != nr;
  // As a number, not a branch, so that the verifier does not walk the rest twice.
  __u64 entry_printed = 0;
  if (split_on_enter || split_on_tracepoint) {
    entry_printed = state->entry_state & SONDE_ENTRY_PRINTED;
    state->entry_state = SONDE_ENTRY_NONE;
  }
  if (continued && !first_ns) __sync_val_compare_and_swap(&first_ns, 0, now);
  __u64 duration = continued ? 0 : now - state->enter_ns;
  // A new child's return from fork is an exit without an entry: perf counts it, strace does not.
  int child_fork_return = continued && ret == 0 && (nr == NR_CLONE || nr == NR_FORK || nr == NR_VFORK || nr == NR_CLONE3);
  if (keep_stats && (count_child_fork_returns || !child_fork_return)) add_stats((__u32)pid_tgid, nr, duration, ret);
  int show = copy_events && duration >= min_duration_ns && (!failures_only || (ret < 0 && ret >= -4095));
  if (show) {
    if (continued) {
      // Nothing of the entry is known: only the number and the return value.
      __u32 zero = 0;
      struct syscall_trace_event* event = bpf_map_lookup_elem(&scratch, &zero);
      if (event) {
        __builtin_memset(event, 0, sizeof(struct syscall_trace_event) - sizeof event->strings);
        event->nr = nr;
        event->flags = SONDE_TRACE_CONTINUED;
        event->exit_ns = now;
        event->ret = ret;
        event->pid = pid_tgid >> 32;
        event->tid = (__u32)pid_tgid;
        event->cpu = bpf_get_smp_processor_id();
        bpf_get_current_comm(event->comm, sizeof event->comm);
        copy_event(event);
      }
    } else {
      // A path in a page not yet faulted in cannot be read at entry (no faults here); the call
      // has read it since. execve's old memory is gone after a successful exec, so not that.
      if ((state->flags & SONDE_TRACE_STRING_MISSING) && nr != NR_EXECVE && nr != NR_EXECVEAT) {
        state->flags &= ~SONDE_TRACE_STRING_MISSING;
        state->string_length[0] = state->string_length[1] = 0;
        read_strings(state, string_masks[nr & (SONDE_TRACE_MAX_SYSCALLS - 1)]);
      }
      if (user_stacks) {
        long got = bpf_get_stack(ctx, state->user_stack, sizeof state->user_stack, BPF_F_USER_STACK);
        state->user_frames = got > 0 ? (__u64)got / 8 : 0;
      }
      if (kernel_stacks) {
        // The first three frames are the BPF program and its tracepoint glue: perf's callchain of
        // the same tracepoint starts at its caller.
        long got = bpf_get_stack(ctx, state->kernel_stack, sizeof state->kernel_stack, 3 & BPF_F_SKIP_FIELD_MASK);
        state->kernel_frames = got > 0 ? (__u64)got / 8 : 0;
      }
      state->flags |= entry_printed ? SONDE_TRACE_RESUMED : 0;
      state->exit_ns = now;
      state->ret = ret;
      state->pid = pid_tgid >> 32;
      state->tid = (__u32)pid_tgid;
      state->cpu = bpf_get_smp_processor_id();
      bpf_get_current_comm(state->comm, sizeof state->comm);
      if (dwarf_stacks) copy_dwarf_event(state, regs);
      else copy_event(state);
    }
  }
  state->enter_ns = 0;
  return 0;
}

// Any tracepoint -e names (attached once per tracepoint): its raw record, for a traced task.
SEC("tracepoint")
int trace_tracepoint(void* ctx) {
  struct task_struct* task = bpf_get_current_task_btf();
  struct syscall_trace_event* state = traced_task(task, !filter_tasks);
  if (!state || (filter_tasks && state->mark != TASK_FOLLOWED)) return 0;
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  if (split_on_tracepoint) interrupt_current((__u32)pid_tgid);
  __u32 zero = 0;
  struct tracepoint_trace_event* event = bpf_map_lookup_elem(&tracepoint_scratch, &zero);
  if (!event) return 0;
  event->kind = SONDE_TRACE_KIND_TRACEPOINT;
  event->time_ns = bpf_ktime_get_ns();
  event->pid = pid_tgid >> 32;
  event->tid = (__u32)pid_tgid;
  event->cpu = bpf_get_smp_processor_id();
  bpf_get_current_comm(event->comm, sizeof event->comm);
  // The kernel has put a pt_regs pointer over the record's common fields by now, so which
  // tracepoint this is comes from the attach cookie (its id), written back as common_type.
  __u32 id = (__u32)bpf_get_attach_cookie(ctx);
  // The whole room first (dynamic strings follow the fixed fields); the fixed size if that faults.
  __u32 size = SONDE_TRACE_TRACEPOINT_MAX;
  if (bpf_probe_read_kernel(event->data, SONDE_TRACE_TRACEPOINT_MAX, ctx) != 0) {
    __u32* fixed = bpf_map_lookup_elem(&tracepoint_sizes, &id);
    size = fixed ? *fixed : 64;
    if (size > SONDE_TRACE_TRACEPOINT_MAX) size = SONDE_TRACE_TRACEPOINT_MAX;
    if (bpf_probe_read_kernel(event->data, size & (SONDE_TRACE_TRACEPOINT_MAX - 1), ctx) != 0) return 0;
  }
  __u16 type = (__u16)id;
  __builtin_memcpy(event->data, &type, sizeof type);
  event->size = size;
  __u32 length = sizeof *event - SONDE_TRACE_TRACEPOINT_MAX + size;
  if (length > sizeof *event) length = sizeof *event;
  emit(event, length);
  return 0;
}

// A page fault (--pf): attached to the major-faults and minor-faults software events of every
// CPU, with cookie 1 for major ones. Counted per thread for the summary; copied when printing.
SEC("perf_event")
int trace_fault(struct bpf_perf_event_data* ctx) {
  struct task_struct* task = bpf_get_current_task_btf();
  struct syscall_trace_event* state = traced_task(task, !filter_tasks);
  if (!state || (filter_tasks && state->mark != TASK_FOLLOWED)) return 0;
  __u8 major = bpf_get_attach_cookie(ctx) == 1;
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  __u32 tid = (__u32)pid_tgid;
  if (keep_stats) {
    struct fault_counts* counts = bpf_map_lookup_elem(&faults, &tid);
    if (!counts) {
      struct fault_counts fresh = {};
      bpf_map_update_elem(&faults, &tid, &fresh, BPF_NOEXIST);
      counts = bpf_map_lookup_elem(&faults, &tid);
    }
    if (counts) {
      if (major) counts->major++;
      else counts->minor++;
    }
  }
  if (!copy_events) return 0;
  struct fault_trace_event event = {};
  event.kind = SONDE_TRACE_KIND_FAULT;
  event.major = major;
  event.user_mode = (ctx->regs.cs & 3) == 3;
  event.time_ns = bpf_ktime_get_ns();
  event.pid = pid_tgid >> 32;
  event.tid = tid;
  event.cpu = bpf_get_smp_processor_id();
  event.ip = ctx->regs.rip;
  event.addr = ctx->addr;
  bpf_get_current_comm(event.comm, sizeof event.comm);
  emit(&event, sizeof event);
  return 0;
}

// sched_process_fork(struct task_struct *parent, struct task_struct *child), run by the parent.
SEC("tp_btf/sched_process_fork")
int follow_fork(__u64* ctx) {
  if (!follow_children) return 0;
  struct task_struct* parent = (struct task_struct*)ctx[0];
  struct task_struct* child = (struct task_struct*)ctx[1];
  struct syscall_trace_event* state = bpf_task_storage_get(&tasks, parent, 0, 0);
  if (!state || (state->mark != TASK_FOLLOWED && state->mark != TASK_PENDING_EXEC)) return 0;
  struct syscall_trace_event* child_state = bpf_task_storage_get(&tasks, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (child_state) {
    child_state->mark = state->mark;
    child_state->enter_ns = 0;
  } else {
    __sync_fetch_and_add(&follow_failures, 1);
  }
  return 0;
}

// sched_process_exec(struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm), run by
// the task that has just exec'd.
SEC("tp_btf/sched_process_exec")
int follow_exec(__u64* ctx) {
  struct syscall_trace_event* state = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);
  if (!state) return 0;
  if (copy_events && state->enter_ns && (state->flags & SONDE_TRACE_STRING_MISSING) &&
      (state->nr == NR_EXECVE || state->nr == NR_EXECVEAT))
    read_exec_strings(state, ctx);
  if (state->mark == TASK_PENDING_EXEC) state->mark = TASK_FOLLOWED;
  if (state->mark == TASK_FOLLOWED || state->mark == TASK_SYSTEM_WIDE) {
    // The thread's comm as the summary names it: the one after its last exec.
    char comm[16];
    bpf_get_current_comm(comm, sizeof comm);
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    bpf_map_update_elem(&comms, &tid, comm, BPF_ANY);
  }
  return 0;
}

char LICENSE[] SEC("license") = "GPL";
