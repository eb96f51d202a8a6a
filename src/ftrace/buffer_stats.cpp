#include "ftrace/buffer_stats.hpp"

#include <algorithm>

#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::ftrace {

CpuBufferStats parse_cpu_stats(std::string_view text) {
  CpuBufferStats stats;
  for (const auto& line : split(text, '\n')) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string_view key = trim(std::string_view(line).substr(0, colon));
    std::string_view value = trim(std::string_view(line).substr(colon + 1));
    auto number = [&] { return parse_uint(value, 10).value_or(0); };
    if (key == "entries")
      stats.entries = number();
    else if (key == "overrun")
      stats.overrun = number();
    else if (key == "commit overrun")
      stats.commit_overrun = number();
    else if (key == "bytes")
      stats.bytes = number();
    else if (key == "dropped events")
      stats.dropped_events = number();
    else if (key == "read events")
      stats.read_events = number();
    else if (key == "oldest event ts")
      stats.oldest_event_ts = value;
    else if (key == "now ts")
      stats.now_ts = value;
  }
  return stats;
}

Result<CpuBufferStats> read_cpu_stats(const Instance& instance, int cpu) {
  auto text = instance.read(fmt::format("per_cpu/cpu{}/stats", cpu));
  if (!text) return tl::unexpected(text.error());
  return parse_cpu_stats(*text);
}

Result<std::vector<int>> buffer_cpus(const Instance& instance) {
  auto entries = list_directory(instance.path("per_cpu"));
  if (!entries) return tl::unexpected(entries.error());
  std::vector<int> cpus;
  for (const auto& entry : *entries) {
    if (!entry.starts_with("cpu")) continue;
    if (auto cpu = parse_uint(std::string_view(entry).substr(3), 10)) cpus.push_back(static_cast<int>(*cpu));
  }
  std::sort(cpus.begin(), cpus.end());
  if (cpus.empty()) return failf("{} lists no CPU buffers", instance.path("per_cpu"));
  return cpus;
}

}  // namespace sonde::ftrace
