/* The strings a traced call passes in user memory, read by the BPF syscall tracer: path names
 * and execve's argv at the call's entry, or, for an exec, from what the kernel copied. Included
 * by syscall_tracer.bpf.c only. */
#ifndef SONDE_SYSCALL_TRACE_STRINGS_H
#define SONDE_SYSCALL_TRACE_STRINGS_H

#include <linux/types.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "syscall_trace_event.h"
#include "task_fields.h"

#define NR_EXECVE 59
#define NR_EXECVEAT 322

// Reads the arguments `mask` names (bit i: argument i) into the call's string slots.
static __always_inline void read_strings(struct syscall_trace_event* state, __u8 mask) {
  int slot = 0;
  for (int arg = 0; arg < 6; ++arg) {
    if (!(mask & (1 << arg)) || slot >= SONDE_TRACE_STRING_SLOTS) continue;
    char* dest = state->strings + (slot & 1) * SONDE_TRACE_STRING_SIZE;
    long n = 0;
    if ((state->nr == NR_EXECVE && arg == 1) || (state->nr == NR_EXECVEAT && arg == 2)) {
      // argv: the elements one after another, each with its '\0'
      const char* const* argv = (const char* const*)state->args[arg];
      __u32 used = 0;
      // Each element gets at most half a slot at an offset below half a slot, bounds the
      // verifier can follow.
      for (int i = 0; i < SONDE_TRACE_ARGV_MAX; ++i) {
        const char* element = 0;
        if (bpf_probe_read_user(&element, sizeof element, argv + i) != 0 || !element) break;
        if (used >= SONDE_TRACE_STRING_SIZE / 2) break;
        long got = bpf_probe_read_user_str(dest + (used & (SONDE_TRACE_STRING_SIZE / 2 - 1)),
                                           SONDE_TRACE_STRING_SIZE / 2, element);
        if (got <= 0) break;
        used += got;
      }
      n = used;
    } else {
      n = bpf_probe_read_user_str(dest, SONDE_TRACE_STRING_SIZE, (const void*)state->args[arg]);
      if (n <= 0) n = 0;
    }
    if (n >= SONDE_TRACE_STRING_SIZE) state->flags |= SONDE_TRACE_STRING_CUT;
    state->string_length[slot & 1] = n > 0 ? (__u16)n : 0;
    state->string_arg[slot & 1] = arg;
    // a failed read leaves the slot unused: the argument prints as a pointer, unless the
    // read at exit (below) finds the page the kernel faulted in meanwhile
    if (n > 0) ++slot;
    else state->flags |= SONDE_TRACE_STRING_MISSING;
  }
}

// execve's path and arguments from what the kernel copied, for a call whose strings could not be
// read at entry (literals in pages a fresh fork child had not touched yet): the file name is in
// the binprm, the arguments on the new image's stack, resident now.
static __always_inline void read_exec_strings(struct syscall_trace_event* state, __u64* ctx) {
  struct linux_binprm___sonde* bprm = (struct linux_binprm___sonde*)ctx[2];
  const char* filename = BPF_CORE_READ(bprm, filename);
  long n = bpf_probe_read_kernel_str(state->strings, SONDE_TRACE_STRING_SIZE, filename);
  state->string_length[0] = n > 0 ? (__u16)n : 0;
  state->string_arg[0] = state->nr == NR_EXECVEAT ? 1 : 0;
  struct task_struct* task = bpf_get_current_task_btf();
  unsigned long start = BPF_CORE_READ(task, mm, arg_start);
  unsigned long end = BPF_CORE_READ(task, mm, arg_end);
  __u64 length = end - start;
  if (length > SONDE_TRACE_STRING_SIZE) length = SONDE_TRACE_STRING_SIZE;
  if (length > 0 && bpf_probe_read_user(state->strings + SONDE_TRACE_STRING_SIZE, length & (SONDE_TRACE_STRING_SIZE - 1) ? length & (SONDE_TRACE_STRING_SIZE - 1) : SONDE_TRACE_STRING_SIZE, (const void*)start) == 0) {
    state->string_length[1] = (__u16)length;
    state->string_arg[1] = state->nr == NR_EXECVEAT ? 2 : 1;
  }
  state->flags &= ~SONDE_TRACE_STRING_MISSING;
}

#endif
