#include "kernel/syscall_formats.hpp"

#include <algorithm>

#include "base/strings.hpp"
#include "kernel/syscall_table.hpp"
#include "kernel/tracefs.hpp"

namespace sonde::kernel {

std::vector<SyscallField> parse_syscall_fields(std::string_view format) {
  std::vector<SyscallField> fields;
  bool after_number = false;
  size_t at = 0;
  while (at < format.size()) {
    size_t end = format.find('\n', at);
    if (end == std::string_view::npos) end = format.size();
    std::string_view line = trim(format.substr(at, end - at));
    at = end + 1;
    if (!line.starts_with("field:")) continue;
    std::string_view declaration = line.substr(6, line.find(';') - 6);
    size_t space = declaration.find_last_of(" *");
    if (space == std::string_view::npos) continue;
    std::string_view name = declaration.substr(space + 1);
    std::string_view type = trim(declaration.substr(0, space + 1));
    if (name == "__syscall_nr") {
      after_number = true;
      continue;
    }
    if (after_number) fields.push_back({std::string(name), std::string(type)});
  }
  return fields;
}

uint32_t tracepoint_fixed_size(std::string_view format) {
  uint32_t end = 0;
  for (size_t at = format.find("offset:"); at != std::string_view::npos;
       at = format.find("offset:", at + 1)) {
    size_t size_at = format.find("size:", at);
    if (size_at == std::string_view::npos) break;
    auto offset = parse_uint(format.substr(at + 7, format.find(';', at) - at - 7));
    auto size = parse_uint(format.substr(size_at + 5, format.find(';', size_at) - size_at - 5));
    if (offset && size) end = std::max<uint32_t>(end, static_cast<uint32_t>(*offset + *size));
  }
  return end;
}

Result<std::vector<SyscallField>> syscall_argument_fields(int number) {
  std::string last_error;
  for (std::string_view stem : syscall_tracepoint_stems(number)) {
    auto format = tracepoint_format("syscalls", "sys_enter_" + std::string(stem));
    if (format) return parse_syscall_fields(*format);
    last_error = format.error().message;
  }
  if (last_error.empty()) return failf("no tracepoint for system call {}", number);
  return fail(last_error);
}

}  // namespace sonde::kernel
