#include "output/report/record_stats_text.hpp"

#include <fmt/format.h>

#include <string_view>

#include "format/perf_format.hpp"

namespace sonde::output {

namespace {

// perf's stats names: the record names without the "HEADER_" of perf's own (ATTR, FEATURE...).
std::string_view stats_name(uint32_t type) {
  std::string_view name = perfdata::record_type_name(type);
  if (name.starts_with("HEADER_")) name.remove_prefix(7);
  return name;
}

}  // namespace

void print_record_stats(std::FILE* out, const analysis::RecordStats& stats, bool skip_empty) {
  fmt::memory_buffer text;
  auto it = fmt::appender(text);
  fmt::format_to(it, "\nAggregated stats:\n{:>16} events: {:10}\n", "TOTAL", stats.total);
  for (uint32_t type = 1; type < analysis::RecordStats::kTypes; ++type) {
    std::string_view name = stats_name(type);
    uint64_t count = stats.by_type[type];
    if (name == "UNKNOWN" || (skip_empty && count == 0)) continue;
    // Record types newer than perf 6.1's list are named only when the file has some.
    if (type > perfdata::PERF_RECORD_FINISHED_INIT && count == 0) continue;
    double share =
        stats.total != 0 ? 100.0 * static_cast<double>(count) / static_cast<double>(stats.total) : 0;
    if (stats.total != 0)
      fmt::format_to(it, "{:>16} events: {:10}  ({:4.1f}%)\n", name, count, share);
    else
      fmt::format_to(it, "{:>16} events: {:10}\n", name, count);
  }
  for (const auto& event : stats.events) {
    if (skip_empty && event.samples == 0) continue;
    fmt::format_to(it, "{} stats:\n", event.name);
    if (event.samples != 0) fmt::format_to(it, "{:>16} events: {:10}\n", "SAMPLE", event.samples);
    if (event.lost_samples != 0)
      fmt::format_to(it, "{:>16} events: {:10}\n", "LOST_SAMPLES", event.lost_samples);
  }
  std::fwrite(text.data(), 1, text.size(), out);
}

}  // namespace sonde::output
