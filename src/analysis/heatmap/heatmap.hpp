#pragma once
// Heat map binning as trace2heatmap.pl does it: events given as (time, latency) pairs land in
// columns of --stepsec seconds and rows of equal latency ranges; the colour of a cell is its count.
// Inputs: trace2heatmap's two-column text, a list of timestamps for the sub-second offset map
// (x: seconds, y: offset within the second), or the latency pairs of a perf.data file's
// events (event_pairs_file: block_rq_issue -> block_rq_complete, sys_enter -> sys_exit, ...).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/heatmap/event_pairs.hpp"
#include "base/error.hpp"

namespace sonde::analysis {

struct HeatMapOptions {
  double time_divisor = 1;  // --unitstime: 1 (s), 1e3 (ms), 1e6 (us), 1e9 (ns)
  double step_sec = 1;      // seconds per column
  double min_lat = 0;
  std::optional<double> max_lat;   // default: the largest latency seen
  std::optional<double> step_lat;  // default: (max_lat - min_lat) / rows, truncated
  int rows = 50;
  std::optional<long> max_col;
  long column_limit = 10000;  // trace2heatmap's refusal point
  // Where the truncated default is 0 (all latencies below `rows` units), use that quotient to two
  // significant digits instead of refusing as trace2heatmap does; for perf.data pairs, whose
  // unit the user did not choose for the data.
  bool fractional_rows = false;
};

// --unitstime's text (s, ms, us or ns; empty is s) as the divisor to seconds.
Result<double> time_divisor_of(std::string_view units);

struct HeatMap {
  size_t columns = 0;  // 0 .. largest column seen
  size_t rows = 0;     // 0 .. int((max_lat - min_lat) / step_lat)
  double min_lat = 0, max_lat = 0, step_lat = 1, step_sec = 1;
  uint64_t largest_count = 0;
  uint64_t events = 0;           // binned
  std::vector<uint64_t> counts;  // columns * rows, column-major: counts[col * rows + row]
  uint64_t at(size_t col, size_t row) const { return counts[col * rows + row]; }
};

class HeatMapBinner {
 public:
  void add(double time, double latency) { events_.push_back({time, latency}); }
  size_t size() const { return events_.size(); }
  Result<HeatMap> bin(const HeatMapOptions& options) const;

 private:
  struct Event {
    double time, latency;
  };
  std::vector<Event> events_;
};

// trace2heatmap's input: "time latency" per line, a first line with letters is a header.
// Returns the number of lines without two numbers (skipped).
size_t read_latency_pairs(std::string_view text, HeatMapBinner& binner);

// Timestamps in seconds, one per line (the first number on the line) or perf script text (the
// "TIME:" of each sample header), as (whole second, microseconds into it) pairs, as
// offsets-perf.pl prints them. `skip_comm` drops samples of that process (e.g. "swapper").
size_t read_offset_timestamps(std::string_view text, HeatMapBinner& binner);

// Matched event pairs: time in seconds, latency in units of `latency_unit_ns` nanoseconds.
void add_latency_pairs(HeatMapBinner& binner, const std::vector<LatencyPair>& pairs, double latency_unit_ns);

// One timestamp (seconds) as the offset map bins it: its whole second, its microseconds into it.
void add_offset_timestamp(HeatMapBinner& binner, double seconds);

// The offset map's fixed latency axis: one second in microseconds.
constexpr double kOffsetAxisMicros = 1000000;

}  // namespace sonde::analysis
