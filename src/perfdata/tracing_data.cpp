#include "perfdata/tracing_data.hpp"

#include <unistd.h>

#include <cstdint>
#include <map>

#include "base/file.hpp"
#include "kernel/tracefs.hpp"

namespace sonde::perfdata {

namespace {

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void put_sized_u64(std::string& out, const std::string& content) {
  put<uint64_t>(out, content.size());
  out += content;
}

}  // namespace

Result<std::string> build_tracing_data(const std::vector<std::pair<std::string, std::string>>& tracepoints) {
  auto root = kernel::tracefs_root();
  if (!root) return tl::unexpected(root.error());
  const std::string events = *root + "/events/";
  std::string out;
  out += "\x17\x08\x44tracing";
  out += std::string("0.6") + '\0';
  out += '\0';  // little endian
  out += static_cast<char>(sizeof(long));
  put<uint32_t>(out, static_cast<uint32_t>(::sysconf(_SC_PAGESIZE)));

  for (const char* header : {"header_page", "header_event"}) {
    auto content = read_file(events + header);
    if (!content) return tl::unexpected(content.error());
    out += std::string(header) + '\0';
    put_sized_u64(out, *content);
  }

  // The ftrace subsystem's own event formats (function, print, ...), as perf stores them.
  std::vector<std::string> ftrace_formats;
  if (auto names = kernel::tracepoint_names("ftrace")) {
    for (const auto& name : *names)
      if (auto format = read_file(events + "ftrace/" + name + "/format")) ftrace_formats.push_back(*format);
  }
  put<uint32_t>(out, static_cast<uint32_t>(ftrace_formats.size()));
  for (const auto& format : ftrace_formats) put_sized_u64(out, format);

  std::map<std::string, std::vector<std::string>> by_system;
  for (const auto& [system, name] : tracepoints) {
    auto& names = by_system[system];
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  put<uint32_t>(out, static_cast<uint32_t>(by_system.size()));
  for (const auto& [system, names] : by_system) {
    out += system + '\0';
    put<uint32_t>(out, static_cast<uint32_t>(names.size()));
    for (const auto& name : names) {
      auto format = kernel::tracepoint_format(system, name);
      if (!format) return tl::unexpected(format.error());
      put_sized_u64(out, *format);
    }
  }

  put<uint32_t>(out, 0);  // kallsyms: perf resolves kernel addresses from its own maps
  auto printk = read_file(*root + "/printk_formats");
  std::string printk_formats = printk ? *printk : std::string();
  put<uint32_t>(out, static_cast<uint32_t>(printk_formats.size()));
  out += printk_formats;
  put<uint64_t>(out, 0);  // saved_cmdlines: the file's COMM records name the tasks
  return out;
}

}  // namespace sonde::perfdata
