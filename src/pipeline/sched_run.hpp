#pragma once
// sonde sched's reports: latency, timehist and map over a perf.data file, printed to stdout in
// perf sched's layouts; replay, which acts a recording's tasks out again; and the event list `sched record`
// records, as perf 6.1 builds it.
#include <string>
#include <vector>

#include "analysis/sched/replay_plan.hpp"
#include "analysis/sched/sched_latency.hpp"
#include "analysis/sched/sched_map.hpp"
#include "analysis/sched/sched_timehist.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::pipeline {

// perf 6.1's `sched record` arguments before the user's: system-wide, raw samples, 1024 pages,
// every event; sched_stat_{wait,sleep,iowait} only when the kernel has them (CONFIG_SCHEDSTATS);
// sched_waking when the kernel has it, else sched_wakeup.
std::vector<std::string> sched_record_arguments();

Result<void> run_sched_latency(const analysis::SchedLatencyOptions& options, Diagnostics& diagnostics);
Result<void> run_sched_timehist(const analysis::SchedTimehistOptions& options, Diagnostics& diagnostics);
Result<void> run_sched_map(const analysis::SchedMapOptions& options, Diagnostics& diagnostics);

struct SchedReplayOptions {
  analysis::ReplayPlanOptions plan;
  unsigned repeat = 10;  // -r: perf's default
};
// perf sched replay: the file read into a plan first (so a bad file fails before anything is
// printed), then perf's calibrations, the plan's counts and tasks, and one line per round.
Result<void> run_sched_replay(const SchedReplayOptions& options, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
