#pragma once
// perf trace's -e/--expr list: syscall names and globs ("open*"), a leading '!' that negates the
// whole list of syscalls, and other events (tracepoints, "sched:sched_switch") mixed in.
#include <bitset>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "kernel/bpf/syscall_trace_event.h"

namespace sonde::events {

struct SyscallSelection {
  std::bitset<SONDE_TRACE_MAX_SYSCALLS> syscalls;
  bool any_syscall_named = false;   // false: only other events were named
  std::vector<std::string> others;  // the entries that are not syscalls, in order
};

// Every syscall this machine knows.
SyscallSelection all_syscalls();
// Parses the -e lists (each comma-separated). A name that matches no syscall and is not an
// event ("subsys:event" or a perf event name) is an error naming it.
Result<SyscallSelection> parse_syscall_selection(const std::vector<std::string>& lists);

}  // namespace sonde::events
