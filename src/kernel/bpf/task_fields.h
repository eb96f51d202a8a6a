/* The few kernel fields sonde's BPF programs read, declared for CO-RE: relocated against the
 * running kernel's BTF at load, so no vmlinux.h is needed. x86-64. */
#ifndef SONDE_TASK_FIELDS_H
#define SONDE_TASK_FIELDS_H

#include <linux/types.h>

/* The saved user registers: the six syscall arguments, the number sys_exit does not pass, and
 * the rest for --call-graph dwarf. */
struct pt_regs___sonde {
  unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, sp;
} __attribute__((preserve_access_index));

struct thread_info___sonde {
  __u32 status;
} __attribute__((preserve_access_index));


/* What execve has copied by sched_process_exec: the file name in kernel memory, the arguments
 * on the new image's stack. */
struct linux_binprm___sonde {
  const char* filename;
} __attribute__((preserve_access_index));

struct mm_struct___sonde {
  unsigned long arg_start, arg_end;
} __attribute__((preserve_access_index));

/* One definition with every field read (each type relocated costs libbpf a pass over the
 * kernel's BTF at load), and a definition rather than a declaration so that libbpf can match
 * kfuncs taking and returning tasks with the kernel's prototypes. */
/* CPU time: the total, and the total when the task last got a CPU. */
struct sched_entity___sonde {
  __u64 sum_exec_runtime;
  __u64 prev_sum_exec_runtime;
} __attribute__((preserve_access_index));

struct task_struct {
  struct thread_info___sonde thread_info;
  struct sched_entity___sonde se;
  unsigned int __state;
  unsigned int flags;
  int pid;
  int tgid;
  char comm[16];
  struct mm_struct___sonde* mm;
} __attribute__((preserve_access_index));

#define TS_COMPAT 0x0002 /* the task is in a 32-bit (ia32) system call */
#define PF_KTHREAD 0x00200000 /* task_struct.flags: a kernel thread */
#define TASK_INTERRUPTIBLE 0x0001
#define TASK_UNINTERRUPTIBLE 0x0002

#include "task_marks.h"

#endif
