#pragma once
// The system calls a trace prints: names by number, and each one's argument fields from its
// tracefs format, read the first time a call of it is printed (or its strings are asked for).
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "kernel/syscall_formats.hpp"

namespace sonde::analysis {

class SyscallCatalogue {
 public:
  SyscallCatalogue();
  // perf trace's name of a syscall, or "" when unknown.
  std::string_view name(int number) const;
  // The argument fields; empty when tracefs has no format for it (arguments then print raw).
  std::span<const kernel::SyscallField> fields(int number);

 private:
  std::vector<std::string_view> names_;
  std::vector<std::optional<std::vector<kernel::SyscallField>>> fields_;
};

}  // namespace sonde::analysis
