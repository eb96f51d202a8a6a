#include "analysis/trace/syscall_catalogue.hpp"

#include "kernel/bpf/syscall_trace_event.h"
#include "kernel/syscall_table.hpp"

namespace sonde::analysis {

SyscallCatalogue::SyscallCatalogue()
    : names_(kernel::syscall_names(SONDE_TRACE_MAX_SYSCALLS - 1)), fields_(SONDE_TRACE_MAX_SYSCALLS) {}

std::string_view SyscallCatalogue::name(int number) const {
  if (number < 0 || static_cast<size_t>(number) >= names_.size()) return {};
  return names_[static_cast<size_t>(number)];
}

std::span<const kernel::SyscallField> SyscallCatalogue::fields(int number) {
  if (number < 0 || static_cast<size_t>(number) >= fields_.size()) return {};
  auto& slot = fields_[static_cast<size_t>(number)];
  if (!slot) {
    auto read = kernel::syscall_argument_fields(number);
    slot = read ? std::move(*read) : std::vector<kernel::SyscallField>{};
  }
  return *slot;
}

}  // namespace sonde::analysis
