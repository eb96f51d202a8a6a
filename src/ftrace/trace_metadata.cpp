#include "ftrace/trace_metadata.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>

#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::ftrace {

uint32_t ring_buffer_page_size(const Instance& instance) {
  if (auto text = instance.read("buffer_subbuf_size_kb"))
    if (auto kb = parse_uint(trim(*text), 10); kb && *kb > 0) return static_cast<uint32_t>(*kb * 1024);
  return static_cast<uint32_t>(::sysconf(_SC_PAGESIZE));
}

Result<TraceMetadata> read_trace_metadata(const Instance& instance, const std::vector<TraceEvent>& events,
                                          const std::vector<int>& cpus) {
  TraceMetadata metadata;
  metadata.page_size = ring_buffer_page_size(instance);
  const std::string& root = instance.root();
  auto required = [](const std::string& path, std::string& into) -> Result<void> {
    auto text = read_file(path);
    if (!text) return tl::unexpected(text.error());
    into = std::move(*text);
    return {};
  };
  if (auto done = required(root + "/events/header_page", metadata.header_page); !done)
    return tl::unexpected(done.error());
  if (auto done = required(root + "/events/header_event", metadata.header_event); !done)
    return tl::unexpected(done.error());
  if (auto ftrace_events = list_directory(root + "/events/ftrace")) {
    for (const auto& name : *ftrace_events) {
      std::string path = root + "/events/ftrace/" + name + "/format";
      if (auto text = read_file(path)) metadata.ftrace_formats.push_back(std::move(*text));
    }
  }
  for (const auto& event : events) {
    if (event.system == "ftrace") continue;
    auto format = read_file(root + "/events/" + event.system + "/" + event.name + "/format");
    if (!format) return tl::unexpected(format.error());
    auto system = std::find_if(metadata.event_formats.begin(), metadata.event_formats.end(),
                               [&](const auto& entry) { return entry.first == event.system; });
    if (system == metadata.event_formats.end()) {
      metadata.event_formats.emplace_back(event.system, std::vector<std::string>{});
      system = metadata.event_formats.end() - 1;
    }
    system->second.push_back(std::move(*format));
  }
  // Without kallsyms or printk formats a report still shows every event, only less symbolically.
  metadata.kallsyms = read_file("/proc/kallsyms").value_or("");
  metadata.printk_formats = read_file(root + "/printk_formats").value_or("");
  metadata.saved_cmdlines = read_file(root + "/saved_cmdlines").value_or("");
  if (auto clocks = instance.read("trace_clock")) {
    auto open = clocks->find('['), close = clocks->find(']');
    if (open != std::string::npos && close != std::string::npos)
      metadata.trace_clock = clocks->substr(open + 1, close - open - 1);
  }
  int highest = cpus.empty() ? -1 : *std::max_element(cpus.begin(), cpus.end());
  metadata.nr_cpus = highest + 1;
  metadata.cpu_stats.resize(static_cast<size_t>(metadata.nr_cpus));
  for (int cpu : cpus)
    metadata.cpu_stats[static_cast<size_t>(cpu)] =
        instance.read(fmt::format("per_cpu/cpu{}/stats", cpu)).value_or("");
  struct utsname name {};
  if (::uname(&name) == 0)
    metadata.uname = fmt::format("{} {} {} {}", name.sysname, name.nodename, name.release, name.machine);
  return metadata;
}

}  // namespace sonde::ftrace
