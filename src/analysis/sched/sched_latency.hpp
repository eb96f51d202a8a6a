#pragma once
// perf sched latency: per task, the time it ran (sched_stat_runtime), how often it was switched
// in, and the delay between its wake-up and its switch-in (average and maximum), per comm
// (merged) or per thread (--pids), sorted by perf's keys. perf keeps every "work atom" of a
// task in a list; only the last one is ever read, so here each task keeps just that one.
#include <cstdint>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::analysis {

struct SchedLatencyOptions {
  std::string input_path = "perf.data";
  std::vector<std::string> sort_keys = {"avg", "max", "switch", "runtime"};
  int profile_cpu = -1;  // -C: perf then also counts wake-ups of running tasks and migrations
  bool per_pid = false;  // -p/--pids: one row per thread instead of per comm
};

struct SchedLatencyRow {
  std::string comm;
  int32_t tid = 0;
  int num_merged = 0;  // > 1: perf prints "comm:(N)"
  uint64_t total_runtime = 0, nb_atoms = 0, total_lat = 0, max_lat = 0, max_lat_start = 0, max_lat_end = 0;
};

struct SchedLatencyReport {
  std::vector<SchedLatencyRow> rows;  // in print order, swapper and tasks never switched in left out
  uint64_t all_runtime = 0, all_count = 0;
  uint64_t nr_timestamps = 0, nr_unordered_timestamps = 0, nr_context_switch_bugs = 0;
  uint64_t nr_events = 0, nr_lost_events = 0, nr_lost_chunks = 0;
};

// Checks perf's sort key names (runtime, switch, avg, max, pid); the message names the bad one.
Result<void> check_latency_sort_keys(const std::vector<std::string>& keys);

Result<SchedLatencyReport> sched_latency(const SchedLatencyOptions& options, Diagnostics& diagnostics);

}  // namespace sonde::analysis
