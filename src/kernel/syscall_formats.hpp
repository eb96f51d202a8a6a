#pragma once
// A system call's arguments as its syscalls:sys_enter_* tracepoint format describes them: names
// and C types, in order. perf trace learns them the same way; no table of 360 syscalls here.
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::kernel {

struct SyscallField {
  std::string name;  // "filename"
  std::string type;  // "const char *"
};

// The fields after __syscall_nr of a sys_enter format's text.
std::vector<SyscallField> parse_syscall_fields(std::string_view format);

// Bytes of a tracepoint's record up to the end of its last fixed field, from its format text.
uint32_t tracepoint_fixed_size(std::string_view format);

// The argument fields of a syscall by number, from tracefs; an error when the kernel has no
// tracepoint for it (the caller prints its arguments as numbers then).
Result<std::vector<SyscallField>> syscall_argument_fields(int number);

}  // namespace sonde::kernel
