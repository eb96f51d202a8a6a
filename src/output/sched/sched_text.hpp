#pragma once
// perf sched latency's table and perf sched map's lines, in perf 6.1's layout, and the "INFO:"
// lines perf prints after both about unordered timestamps, lost events and context switch bugs.
#include <fmt/format.h>

#include <vector>

#include "analysis/sched/sched_latency.hpp"
#include "analysis/sched/sched_map.hpp"
#include "base/output_stream.hpp"

namespace sonde::output {

void append_latency_table(const analysis::SchedLatencyReport& report, fmt::memory_buffer& out);

struct BadEventCounts {
  uint64_t nr_timestamps = 0, nr_unordered_timestamps = 0, nr_context_switch_bugs = 0;
  uint64_t nr_events = 0, nr_lost_events = 0, nr_lost_chunks = 0;
};
void append_bad_events(const BadEventCounts& counts, fmt::memory_buffer& out);

class SchedMapText : public analysis::SchedMapSink {
 public:
  // `color`: escape sequences for --color-pids/--color-cpus (perf colours only a terminal).
  SchedMapText(OutputStream& out, bool color) : out_(out), color_(color) {}
  void line(const analysis::SchedMapLine& line) override;
  Result<void> finish(const BadEventCounts& counts);

 private:
  char* colored(char* at, const char* color, std::string_view text) const;
  OutputStream& out_;
  bool color_;
  fmt::memory_buffer buffer_;
  fmt::memory_buffer stamp_;
  std::vector<char> scratch_;  // one line's cells
  bool failed_ = false;
  Error error_;
};

}  // namespace sonde::output
