#pragma once
// report -T/--threads: each thread's counts from the READ records a `record -s` file holds (the
// kernel writes one as each inherited thread exits), as perf's read values table keeps them.
#include <cstdint>
#include <string>
#include <vector>

namespace sonde::analysis {

struct ThreadCounts {
  struct Counter {
    std::string name;
    uint64_t raw_id = 0;  // the event's index in the file, which perf's raw layout prints
  };
  struct Row {
    int32_t pid = 0, tid = 0;
    std::vector<uint64_t> values;  // one per counter, 0 where the thread had no READ of it
  };
  std::vector<Counter> counters;  // in the order their first READ came
  std::vector<Row> rows;          // likewise, threads

  // One READ record's value, added to what the thread has for that event.
  void add(int32_t pid, int32_t tid, uint64_t event_index, const std::string& name, uint64_t value);
};

}  // namespace sonde::analysis
