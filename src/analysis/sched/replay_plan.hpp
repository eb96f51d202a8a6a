#pragma once
// perf sched replay's reading of a recording: each task's run, sleep and wake-up atoms, built
// as perf 6.1's builtin-sched.c builds them, and the counts it prints before replaying.
//
// - A task is registered when first named (by pid): by a FORK record (parent, then child, with
//   the comms perf's machine gives them), by a sched_switch (prev, then next) or by a wake-up
//   (the waker as "<unknown>", then the wakee). Its first atom is a sleep.
// - sched_switch on a CPU: the task switched out gets a run atom of the time since that CPU's
//   previous switch (0 for the CPU's first), merged into its last atom when that is a run, then
//   a sleep atom.
// - sched_wakeup and sched_wakeup_new (sched_waking is not read, and sched_wakeup is ignored
//   when the file has sched_waking, as perf 6.1 does): the waker gets a wake-up atom; when the
//   wakee's last atom is a sleep not yet claimed, the two share a semaphore (nr_wakeup_events),
//   otherwise the wake-up is target-less or multi-target and does nothing.
// - After the counts are printed, each task wakes the next (the last the first), as perf's
//   add_cross_task_wakeups does: those atoms are in the plan but not in the printed counts.
#include <cstdint>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "capture/sched_replayer.hpp"

namespace sonde::analysis {

struct ReplayPlanOptions {
  std::string input_path = "perf.data";
  bool verbose = false;  // -v: keep perf's "registered task" and event lines
};

struct ReplayPlanReport {
  capture::ReplayPlan plan;
  // perf's counters, as printed (before the cross-task wake-ups are added).
  uint64_t nr_run_events = 0, nr_sleep_events = 0, nr_wakeup_events = 0;
  uint64_t targetless_wakeups = 0, multitarget_wakeups = 0, nr_run_events_optimized = 0;
  // Each task's atom count as printed (before its cross-task wake-up).
  std::vector<uint64_t> printed_events;
  std::vector<std::string> verbose_lines;  // with -v, perf's lines while reading, in order
};

// Fails as perf's timehist does when the file has no sched_switch events (perf's replay would
// replay nothing).
Result<ReplayPlanReport> build_replay_plan(const ReplayPlanOptions& options, Diagnostics& diagnostics);

}  // namespace sonde::analysis
