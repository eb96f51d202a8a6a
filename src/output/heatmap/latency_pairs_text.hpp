#pragma once
// Latency pairs as trace2heatmap.pl's input: a header line, then "time latency" per pair (time
// in seconds, latency in the chosen unit), so `sonde heatmap --dump` feeds trace2heatmap.pl or
// `sonde heatmap` itself.
#include <string>
#include <string_view>
#include <vector>

#include "analysis/heatmap/event_pairs.hpp"

namespace sonde::output {

struct LatencyUnit {
  std::string_view name;  // ns, us, ms, s
  uint64_t nanoseconds;   // one unit in ns
  int decimals;           // digits that keep nanosecond precision
};

// The unit named `name` (ns, us, ms or s), or nullptr.
const LatencyUnit* find_latency_unit(std::string_view name);

std::string latency_pairs_text(const std::vector<analysis::LatencyPair>& pairs, const LatencyUnit& unit);

}  // namespace sonde::output
