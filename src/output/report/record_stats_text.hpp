#pragma once
// perf report --stats' text: "Aggregated stats:", a line per record type the file holds
// ("%16s events: %10d  (%4.1f%%)"), then each event's SAMPLE and LOST_SAMPLES counts.
#include <cstdio>

#include "analysis/report/record_stats.hpp"

namespace sonde::output {

// `skip_empty` (perf's default) leaves out record types and events with nothing counted.
void print_record_stats(std::FILE* out, const analysis::RecordStats& stats, bool skip_empty);

}  // namespace sonde::output
