#pragma once
// System call numbers by the names the syscalls:sys_enter_* tracepoints use.
#include <optional>
#include <string_view>

namespace sonde::kernel {

// The number of the system call a syscalls tracepoint ("sys_enter_write", "sys_exit_newstat")
// reports, or nullopt when the name is not a syscall tracepoint or its number is not known.
std::optional<int> syscall_number_of_tracepoint(std::string_view tracepoint_name);

}  // namespace sonde::kernel
