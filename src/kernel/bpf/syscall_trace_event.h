/* The records the BPF syscall tracer shares with sonde: its ring-buffer events and its summary
 * maps' keys and values. Plain C, included by the BPF program and by kernel/syscall_tracer. */
#ifndef SONDE_SYSCALL_TRACE_EVENT_H
#define SONDE_SYSCALL_TRACE_EVENT_H

#include <linux/types.h>

#define SONDE_TRACE_MAX_SYSCALLS 512
#define SONDE_TRACE_STRING_SIZE 256 /* per string slot; longer strings are cut */
#define SONDE_TRACE_STRING_SLOTS 2
#define SONDE_TRACE_ARGV_MAX 8 /* execve's argv elements read */
#define SONDE_TRACE_MAX_CPUS 1024
#define SONDE_TRACE_USER_FRAMES 48 /* --call-graph: user frames kept */
#define SONDE_TRACE_KERNEL_FRAMES 16 /* --kernel-syscall-graph: kernel frames kept */

/* syscall_trace_event.flags */
#define SONDE_TRACE_CONTINUED 1 /* the exit of a call whose entry was not seen */
#define SONDE_TRACE_STRING_CUT 2
#define SONDE_TRACE_NO_RETURN 4 /* exit or exit_group, copied at entry */
#define SONDE_TRACE_STRING_MISSING 8 /* a string argument could not be read at entry */
#define SONDE_TRACE_UNFINISHED 16 /* an entry printed before its exit: rt_sigreturn, or a call
                                     another thread's entry (or a tracepoint) interrupted */
#define SONDE_TRACE_RESUMED 32    /* the exit of a call printed as UNFINISHED before */

/* syscall_trace_event.entry_state */
#define SONDE_ENTRY_NONE 0
#define SONDE_ENTRY_PENDING 1 /* in flight, its entry not printed */
#define SONDE_ENTRY_PRINTED 2 /* in flight, its entry printed as interrupted */

/* What a ring-buffer record holds: its first field. */
#define SONDE_TRACE_KIND_SYSCALL 0
#define SONDE_TRACE_KIND_TRACEPOINT 1
#define SONDE_TRACE_KIND_FAULT 2
#define SONDE_TRACE_KIND_SYSCALL_DWARF 3 /* a syscall_trace_event_dwarf */

/* One completed system call, as the tracer copies it out at its exit. Only the used part of
 * `strings` is copied: slot 0's bytes, or all of slot 0 then slot 1's bytes. */
struct syscall_trace_event {
  __u32 kind; /* SONDE_TRACE_KIND_SYSCALL */
  __u16 user_frames;   /* frames in user_stack (--call-graph) */
  __u16 kernel_frames; /* frames in kernel_stack (--kernel-syscall-graph) */
  __u64 enter_ns; /* bpf_ktime_get_ns (CLOCK_MONOTONIC); 0 when continued */
  __u64 exit_ns;
  __u64 args[6];
  __s64 ret;
  __u32 pid;
  __u32 tid;
  __s32 nr;
  __u32 cpu;
  /* In task storage only: whether the call in flight has had its entry printed because another
   * event came first (SONDE_ENTRY_*); the interrupting program sets it with a compare-and-swap. */
  __u64 entry_state; /* 64 bits: BPF's compare-and-swap before -mcpu=v3 */
  __u16 string_length[SONDE_TRACE_STRING_SLOTS]; /* bytes used in each slot, 0: none */
  __u8 string_arg[SONDE_TRACE_STRING_SLOTS];     /* the argument each slot holds */
  __u8 flags;
  __u8 mark; /* the task's selection mark, kept beside the call in task storage */
  char comm[16];
  char strings[SONDE_TRACE_STRING_SLOTS * SONDE_TRACE_STRING_SIZE];
  /* With call graphs only, and then copied whole after the strings: leaf first, as
   * bpf_get_stack gives them at the call's exit. */
  __u64 user_stack[SONDE_TRACE_USER_FRAMES];
  __u64 kernel_stack[SONDE_TRACE_KERNEL_FRAMES];
};

#define SONDE_TRACE_TRACEPOINT_MAX 1024 /* bytes of a tracepoint's record copied */

/* A tracepoint hit by a traced task (-e subsys:event): its raw record as perf would sample it
 * (common fields first), `size` bytes of it copied. */
struct tracepoint_trace_event {
  __u32 kind; /* SONDE_TRACE_KIND_TRACEPOINT */
  __u32 size;
  __u64 time_ns;
  __u32 pid;
  __u32 tid;
  __u32 cpu;
  __u32 reserved;
  char comm[16];
  __u8 data[SONDE_TRACE_TRACEPOINT_MAX];
};

/* A page fault of a traced task (--pf), from the major-faults or minor-faults software event. */
struct fault_trace_event {
  __u32 kind; /* SONDE_TRACE_KIND_FAULT */
  __u8 major;
  __u8 user_mode; /* the faulting instruction was user code */
  __u16 reserved;
  __u64 time_ns;
  __u32 pid;
  __u32 tid;
  __u32 cpu;
  __u32 reserved2;
  __u64 ip;   /* the faulting instruction */
  __u64 addr; /* the address it touched */
  char comm[16];
};

/* Faults per thread, for the summary's "N majfaults, M minfaults". */
struct fault_counts {
  __u64 major;
  __u64 minor;
};

#define SONDE_TRACE_DWARF_STACK 8192 /* --call-graph dwarf: bytes of user stack copied */
#define SONDE_TRACE_DWARF_REGS 17    /* x86-64's general registers and ip, as perf dumps them */

/* --call-graph dwarf: a call with the user registers at its entry (as perf_event's regs, in
 * order ax, bx, cx, dx, si, di, bp, sp, ip, r8..r15) and a copy of the stack from sp, for
 * unwinding with the DSOs' CFI in user space, as perf does. */
struct syscall_trace_event_dwarf {
  struct syscall_trace_event call; /* call.kind is SONDE_TRACE_KIND_SYSCALL_DWARF */
  __u64 regs[SONDE_TRACE_DWARF_REGS];
  __u64 stack_size; /* bytes of stack valid */
  __u8 stack[SONDE_TRACE_DWARF_STACK];
};

struct syscall_stats_key {
  __u32 tid;
  __s32 nr;
};

struct syscall_stats_value {
  __u64 calls;
  __u64 errors;
  __u64 total_ns;
  __u64 min_ns;
  __u64 max_ns;
  /* sum of squared durations in (ns/16)², as 128 bits: ns² would overflow a u64 at 4 s */
  __u64 squares_low;
  __u64 squares_high;
};

struct syscall_errno_key {
  __u32 tid;
  __s32 nr;
  __s32 err;
  __u32 pad;
};

#endif
