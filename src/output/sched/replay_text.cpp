#include "output/sched/replay_text.hpp"

#include <iterator>

namespace sonde::output {

void append_replay_calibration(const capture::ReplayCalibration& c, fmt::memory_buffer& out) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "run measurement overhead: {} nsecs\n", c.run_overhead);
  fmt::format_to(it, "sleep measurement overhead: {} nsecs\n", c.sleep_overhead);
  fmt::format_to(it, "the run test took {} nsecs\n", c.run_test);
  fmt::format_to(it, "the sleep test took {} nsecs\n", c.sleep_test);
}

void append_replay_plan(const analysis::ReplayPlanReport& report, fmt::memory_buffer& out) {
  auto it = std::back_inserter(out);
  for (const std::string& line : report.verbose_lines) fmt::format_to(it, "{}\n", line);
  fmt::format_to(it, "nr_run_events:        {}\n", report.nr_run_events);
  fmt::format_to(it, "nr_sleep_events:      {}\n", report.nr_sleep_events);
  fmt::format_to(it, "nr_wakeup_events:     {}\n", report.nr_wakeup_events);
  if (report.targetless_wakeups != 0)
    fmt::format_to(it, "target-less wakeups:  {}\n", report.targetless_wakeups);
  if (report.multitarget_wakeups != 0)
    fmt::format_to(it, "multi-target wakeups: {}\n", report.multitarget_wakeups);
  if (report.nr_run_events_optimized != 0)
    fmt::format_to(it, "run atoms optimized: {}\n", report.nr_run_events_optimized);
  const auto& tasks = report.plan.tasks;
  for (size_t i = 0; i < tasks.size(); ++i) {
    // perf prints the pid as a signed long.
    fmt::format_to(it, "task {:>6} ({:>20}:{:>10}), nr_events: {}\n", i, tasks[i].comm,
                   static_cast<int64_t>(tasks[i].pid),
                   i < report.printed_events.size() ? report.printed_events[i] : 0);
  }
  fmt::format_to(it, "------------------------------------------------------------\n");
}

void append_replay_round(const capture::ReplayRound& round, fmt::memory_buffer& out) {
  constexpr double kNsPerMsec = 1e6;
  fmt::format_to(std::back_inserter(out), "#{:<3}: {:.3f}, ravg: {:.2f}, cpu: {:.2f} / {:.2f}\n",
                 round.number, static_cast<double>(round.wall) / kNsPerMsec,
                 static_cast<double>(round.run_avg) / kNsPerMsec, static_cast<double>(round.cpu) / kNsPerMsec,
                 static_cast<double>(round.cpu_avg) / kNsPerMsec);
}

}  // namespace sonde::output
