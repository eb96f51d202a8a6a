#pragma once
// perf stat: one measurement of a command or a target, repeated (-r) or printed at intervals
// (-I), with perf's default events when none are given, printed by output/stat's printer.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "analysis/stat/stat_table.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "capture/counter_session.hpp"
#include "events/event_spec.hpp"

namespace sonde::pipeline {

// What to count, as the command line names it.
struct StatTargetSpec {
  std::string pids, tids;   // -p/-t: existing tasks
  std::string cpu_list;     // -C
  bool all_cpus = false;    // -a
  bool per_thread = false;  // --per-thread
  bool inherit = true;      // -i turns it off
  bool system_wide() const { return all_cpus || !cpu_list.empty(); }
};

struct StatRunOptions {
  std::vector<events::EventSpec> events;  // empty (and not null_run): perf's defaults, -d adds more
  int detail = 0;                         // -d, -dd, -ddd
  bool null_run = false;                  // -n: count nothing
  std::vector<std::string> command;       // run and count this; empty to count the target
  StatTargetSpec target;
  analysis::Aggregation aggregation = analysis::Aggregation::global;
  capture::CountingOptions counting;
  std::optional<std::chrono::milliseconds> interval;  // -I: print the counts since the last tick
  std::optional<int> interval_count;                  // --interval-count
  std::optional<std::chrono::milliseconds> timeout;   // --timeout
  int repeat = 1;                                     // -r: mean and spread over runs
  std::optional<std::string> csv_separator;           // -x
  std::string output_path;                            // -o: the counts go there instead of stderr
  bool append = false;                                // --append to the -o file
  int log_fd = -1;                                    // --log-fd: the counts go to this descriptor
  bool quiet = false;                                 // --quiet: count, print nothing
  bool json = false;                                  // -j
  bool scale = true;                                  // --no-scale: multiplexed counts as read
  bool summary = false;                               // --summary: the whole run after -I's intervals
  bool csv_summary_prefix = true;                     // --no-csv-summary drops "summary," from CSV
  bool interval_clear = false;                        // --interval-clear
  bool run_table = false;                             // --table: each -r run's time
  bool metric_only = false;                           // --metric-only: the metrics alone, a row per unit
  enum class Privilege { both, user, kernel } privilege = Privilege::both;  // --all-user, --all-kernel
  std::string pre_command, post_command;           // --pre, --post: run around each run
  bool sync_first = false;                         // --sync: sync() before each run
  std::optional<std::chrono::milliseconds> delay;  // -D: negative waits for --control enable
  std::string control;                             // --control fifo:CTL[,ACK] | fd:CTL[,ACK]
};

// perf 6.1's default events for stat (system-wide or not), with -d's additions.
Result<void> parse_default_stat_events(bool system_wide, int detail, std::vector<events::EventSpec>& events);

// Counts and prints the counts on stderr or the -o file (perf stat's layout); the exit status sonde
// stat ends with: the workload's, or 0 without one.
Result<int> run_stat(StatRunOptions options, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
