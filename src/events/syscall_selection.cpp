#include "events/syscall_selection.hpp"

#include "base/strings.hpp"
#include "kernel/syscall_table.hpp"

namespace sonde::events {

namespace {

const std::vector<std::string_view>& names_by_number() {
  static const auto names = kernel::syscall_names(SONDE_TRACE_MAX_SYSCALLS - 1);
  return names;
}

}  // namespace

SyscallSelection all_syscalls() {
  SyscallSelection selection;
  const auto& names = names_by_number();
  for (size_t nr = 0; nr < names.size(); ++nr)
    if (!names[nr].empty()) selection.syscalls.set(nr);
  selection.any_syscall_named = true;
  return selection;
}

Result<SyscallSelection> parse_syscall_selection(const std::vector<std::string>& lists) {
  SyscallSelection selection;
  bool negate = false;
  bool first = true;
  const auto& names = names_by_number();
  for (const auto& list : lists) {
    for (std::string entry : split(list, ',')) {
      std::string_view name = trim(entry);
      if (name.empty()) continue;
      // perf trace: a '!' before the first entry negates the whole syscall list.
      if (first && name.starts_with('!')) {
        negate = true;
        name.remove_prefix(1);
      }
      first = false;
      bool matched = false;
      if (has_glob(name)) {
        for (size_t nr = 0; nr < names.size(); ++nr)
          if (!names[nr].empty() && glob_match(name, names[nr])) {
            selection.syscalls.set(nr);
            matched = true;
          }
      } else if (auto nr = kernel::syscall_number(name); nr && *nr < SONDE_TRACE_MAX_SYSCALLS) {
        selection.syscalls.set(static_cast<size_t>(*nr));
        matched = true;
      }
      if (matched) {
        selection.any_syscall_named = true;
      } else if (name.find(':') != std::string_view::npos) {
        selection.others.emplace_back(name);
      } else {
        return failf(
            "unknown system call '{}'; give syscall names or globs (open*), or tracepoints as subsys:event",
            name);
      }
    }
  }
  if (negate) {
    auto all = all_syscalls().syscalls;
    selection.syscalls = all & ~selection.syscalls;
    selection.any_syscall_named = true;
  }
  return selection;
}

}  // namespace sonde::events
