#include "analysis/report/thread_counts.hpp"

namespace sonde::analysis {

void ThreadCounts::add(int32_t pid, int32_t tid, uint64_t event_index, const std::string& name,
                       uint64_t value) {
  size_t row = 0;
  while (row < rows.size() && !(rows[row].pid == pid && rows[row].tid == tid)) ++row;
  if (row == rows.size()) rows.push_back({pid, tid, std::vector<uint64_t>(counters.size(), 0)});
  size_t column = 0;
  while (column < counters.size() && counters[column].raw_id != event_index) ++column;
  if (column == counters.size()) {
    counters.push_back({name, event_index});
    for (Row& each : rows) each.values.push_back(0);
  }
  rows[row].values[column] += value;
}

}  // namespace sonde::analysis
