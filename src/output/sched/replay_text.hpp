#pragma once
// perf sched replay's lines, in perf 6.1's layout: the clock calibrations, the counts of run,
// sleep and wake-up atoms, the task list, and one "#N" line per replay round.
#include <fmt/format.h>

#include "analysis/sched/replay_plan.hpp"
#include "capture/sched_replayer.hpp"

namespace sonde::output {

void append_replay_calibration(const capture::ReplayCalibration& calibration, fmt::memory_buffer& out);
// -v's lines, the counts, the tasks and the dashed line before the rounds.
void append_replay_plan(const analysis::ReplayPlanReport& report, fmt::memory_buffer& out);
void append_replay_round(const capture::ReplayRound& round, fmt::memory_buffer& out);

}  // namespace sonde::output
