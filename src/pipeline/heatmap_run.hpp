#pragma once
// sonde heatmap: a latency heat map from "time latency" lines or from pairs of tracepoint samples
// in a perf.data file, or a sub-second offset map from timestamps, perf script text or a
// perf.data file's samples; drawn as SVG (or the pairs dumped as text, --dump).
#include <string>

#include "analysis/heatmap/event_pairs_file.hpp"
#include "analysis/heatmap/heatmap.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "output/heatmap/heatmap_svg.hpp"

namespace sonde::pipeline {

struct HeatmapRunOptions {
  std::string input_path;   // empty or "-": stdin (text only)
  std::string output_path;  // empty: stdout
  analysis::HeatMapOptions map;
  output::HeatMapStyle style;
  bool offsets = false;  // --offsets: the sub-second offset map
  bool dump = false;     // perf.data: the pairs as "time latency" lines instead of a map
  // perf.data: which samples pair up (the key lists and thread filters as the command line gives them).
  analysis::EventPairRequest pairs;
  std::string start_key, end_key, comms, pids, tids;
};

// Usage errors for options that do not fit the input; skipped input lines are a warning.
Result<void> draw_heatmap(HeatmapRunOptions options, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
