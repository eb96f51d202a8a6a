#pragma once
// perf evlist's lines: each event of a recording by name, with its sampling frequency or
// period (-F), its attr's non-zero fields (-v), its tracepoint fields (--trace-fields), or the
// events as their groups (-g: "{leader,member}"); perf 6.1's evsel__fprintf.
#include <fmt/format.h>
#include <linux/perf_event.h>

#include <optional>
#include <string>
#include <vector>

namespace sonde::output {

struct EvlistOptions {
  bool freq = false;          // -F
  bool group = false;         // -g (alone: perf refuses it with the others)
  bool verbose = false;       // -v
  bool trace_fields = false;  // --trace-fields
};

struct EvlistEvent {
  std::string name;
  perf_event_attr attr{};
  // -g: the event's group's leader index among the events, and the group's name when it has one.
  size_t leader = 0;
  std::string group_name;
  // A tracepoint's own fields (not the common ones); nullopt when its format is not in the file.
  std::optional<std::vector<std::string>> trace_fields;
};

// The lines for `events`, and perf's tip about --trace-fields after them when a tracepoint is
// listed without it.
void append_evlist(const std::vector<EvlistEvent>& events, const EvlistOptions& options,
                   fmt::memory_buffer& out);

}  // namespace sonde::output
