#include "output/report/thread_counts_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace sonde::output {

namespace {

int width_of(auto value) { return static_cast<int>(fmt::formatted_size("{}", value)); }

}  // namespace

void print_thread_counts(std::FILE* out, const analysis::ThreadCounts& counts, bool raw) {
  int pid_width = 3, tid_width = 3;  // "PID", "TID"
  for (const auto& row : counts.rows) {
    pid_width = std::max(pid_width, width_of(row.pid));
    tid_width = std::max(tid_width, width_of(row.tid));
  }
  std::string text;
  auto it = std::back_inserter(text);
  if (!raw) {
    std::vector<int> widths;
    for (size_t c = 0; c < counts.counters.size(); ++c) {
      int width = static_cast<int>(counts.counters[c].name.size());
      for (const auto& row : counts.rows) width = std::max(width, width_of(row.values[c]));
      widths.push_back(width);
    }
    fmt::format_to(it, "# {:>{}}  {:>{}}", "PID", pid_width, "TID", tid_width);
    for (size_t c = 0; c < counts.counters.size(); ++c)
      fmt::format_to(it, "  {:>{}}", counts.counters[c].name, widths[c]);
    text += '\n';
    for (const auto& row : counts.rows) {
      fmt::format_to(it, "  {:>{}}  {:>{}}", row.pid, pid_width, row.tid, tid_width);
      for (size_t c = 0; c < counts.counters.size(); ++c)
        fmt::format_to(it, "  {:>{}}", row.values[c], widths[c]);
      text += '\n';
    }
  } else {
    // perf's raw layout: the raw id in hex (its width counted with the 0x perf leaves out of the
    // value), and no line ends between the rows or after the last, as perf 6.1 prints it.
    int name_width = 4, raw_width = 3, count_width = 5;  // "Name", "Raw", "Count"
    for (const auto& counter : counts.counters) {
      name_width = std::max(name_width, static_cast<int>(counter.name.size()));
      raw_width = std::max(raw_width, static_cast<int>(fmt::formatted_size("{:#x}", counter.raw_id)));
    }
    for (const auto& row : counts.rows)
      for (uint64_t value : row.values) count_width = std::max(count_width, width_of(value));
    fmt::format_to(it, "# {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}\n", "PID", pid_width, "TID", tid_width,
                   "Name", name_width, "Raw", raw_width, "Count", count_width);
    for (const auto& row : counts.rows)
      for (size_t c = 0; c < counts.counters.size(); ++c)
        fmt::format_to(it, "  {:>{}}  {:>{}}  {:>{}}  {:>{}x}  {:>{}}", row.pid, pid_width, row.tid,
                       tid_width, counts.counters[c].name, name_width, counts.counters[c].raw_id, raw_width,
                       row.values[c], count_width);
  }
  std::fwrite(text.data(), 1, text.size(), out);
}

}  // namespace sonde::output
