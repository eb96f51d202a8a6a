#include "output/ftrace/buffer_stats_table.hpp"

#include <fmt/format.h>

namespace sonde::output {

std::string format_buffer_stats(const std::string& buffer_name, const std::string& size_kb,
                                const std::vector<std::pair<int, ftrace::CpuBufferStats>>& cpus) {
  std::string text = fmt::format("{} buffer, {} KB per CPU\n", buffer_name, size_kb);
  text += fmt::format("{:>4} {:>10} {:>10} {:>14} {:>10} {:>10} {:>10} {:>16} {:>16}\n", "CPU", "entries",
                      "overrun", "commit_overrun", "bytes", "dropped", "read", "oldest_event_ts", "now_ts");
  for (const auto& [cpu, stats] : cpus)
    text += fmt::format("{:>4} {:>10} {:>10} {:>14} {:>10} {:>10} {:>10} {:>16} {:>16}\n", cpu, stats.entries,
                        stats.overrun, stats.commit_overrun, stats.bytes, stats.dropped_events,
                        stats.read_events, stats.oldest_event_ts, stats.now_ts);
  return text;
}

}  // namespace sonde::output
