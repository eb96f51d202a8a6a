#pragma once
// System call numbers by the names the syscalls:sys_enter_* tracepoints use.
#include <optional>
#include <string_view>
#include <vector>

namespace sonde::kernel {

// The number of the system call a syscalls tracepoint ("sys_enter_write", "sys_exit_newstat")
// reports, or nullopt when the name is not a syscall tracepoint or its number is not known.
std::optional<int> syscall_number_of_tracepoint(std::string_view tracepoint_name);

// The name perf trace prints for a syscall number ("newfstatat", "stat"), or "" when unknown.
std::string_view syscall_name(int number);
// The number of a syscall by that name (or by its SYSCALL_DEFINE name: "newstat").
std::optional<int> syscall_number(std::string_view name);
// Names indexed by number up to highest_number, "" where unknown.
std::vector<std::string_view> syscall_names(int highest_number);
// The names a syscall's tracepoints may carry after "sys_enter_": the kernel's SYSCALL_DEFINE
// name first where it differs ("newstat" for stat).
std::vector<std::string_view> syscall_tracepoint_stems(int number);

}  // namespace sonde::kernel
