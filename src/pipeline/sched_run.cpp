#include "pipeline/sched_run.hpp"

#include <unistd.h>

#include "base/output_stream.hpp"
#include "kernel/tracefs.hpp"
#include "output/sched/replay_text.hpp"
#include "output/sched/sched_text.hpp"
#include "output/sched/timehist_text.hpp"

namespace sonde::pipeline {

std::vector<std::string> sched_record_arguments() {
  std::vector<std::string> args = {"record",
                                   "-a",
                                   "-R",
                                   "-m",
                                   "1024",
                                   "-c",
                                   "1",
                                   "-e",
                                   "sched:sched_switch",
                                   "-e",
                                   "sched:sched_stat_runtime",
                                   "-e",
                                   "sched:sched_process_fork",
                                   "-e",
                                   "sched:sched_wakeup_new",
                                   "-e",
                                   "sched:sched_migrate_task"};
  // perf asks for the three schedstat events together, when the kernel exposes them.
  bool schedstats = true;
  for (const char* name : {"sched_stat_wait", "sched_stat_sleep", "sched_stat_iowait"})
    if (!kernel::tracepoint_id("sched", name)) schedstats = false;
  if (schedstats)
    for (const char* name : {"sched_stat_wait", "sched_stat_sleep", "sched_stat_iowait"}) {
      args.emplace_back("-e");
      args.emplace_back(std::string("sched:") + name);
    }
  args.emplace_back("-e");
  args.emplace_back(kernel::tracepoint_id("sched", "sched_waking") ? "sched:sched_waking"
                                                                   : "sched:sched_wakeup");
  return args;
}

Result<void> run_sched_latency(const analysis::SchedLatencyOptions& options, Diagnostics& diagnostics) {
  auto report = analysis::sched_latency(options, diagnostics);
  if (!report) return tl::unexpected(report.error());
  fmt::memory_buffer text;
  output::append_latency_table(*report, text);
  OutputStream out(STDOUT_FILENO, false, "stdout");
  if (auto written = out.write(text.data(), text.size()); !written) return written;
  return out.flush();
}

Result<void> run_sched_timehist(const analysis::SchedTimehistOptions& options, Diagnostics& diagnostics) {
  OutputStream out(STDOUT_FILENO, false, "stdout");
  output::TimehistTextOptions text_options;
  text_options.cpu_visual = options.cpu_visual;
  text_options.wakeups = options.wakeups;
  text_options.next = options.next;
  text_options.state = options.state;
  text_options.idle_hist = options.idle_hist;
  output::TimehistText text(text_options, out);
  auto done = analysis::sched_timehist(options, text, diagnostics);
  auto finished = text.finish();
  if (!done) return done;
  return finished;
}

Result<void> run_sched_map(const analysis::SchedMapOptions& options, Diagnostics& diagnostics) {
  OutputStream out(STDOUT_FILENO, false, "stdout");
  bool color = ::isatty(STDOUT_FILENO) == 1 && (!options.color_pids.empty() || !options.color_cpus.empty());
  output::SchedMapText text(out, color);
  analysis::SchedMapOptions run = options;
  // perf sizes the map by the CPUs configured on the machine that reads the file.
  if (run.max_cpu == 0) run.max_cpu = static_cast<uint32_t>(::sysconf(_SC_NPROCESSORS_CONF));
  auto stats = analysis::sched_map(run, text, diagnostics);
  if (!stats) {
    (void)text.finish({});
    return tl::unexpected(stats.error());
  }
  return text.finish(output::BadEventCounts{stats->nr_timestamps, stats->nr_unordered_timestamps,
                                            stats->nr_context_switch_bugs, stats->nr_events,
                                            stats->nr_lost_events, stats->nr_lost_chunks});
}

Result<void> run_sched_replay(const SchedReplayOptions& options, Diagnostics& diagnostics) {
  auto report = analysis::build_replay_plan(options.plan, diagnostics);
  if (!report) return tl::unexpected(report.error());
  OutputStream out(STDOUT_FILENO, false, "stdout");
  auto print = [&](const fmt::memory_buffer& text) -> Result<void> {
    if (auto written = out.write(text.data(), text.size()); !written) return written;
    return out.flush();
  };
  fmt::memory_buffer text;
  capture::ReplayCalibration calibration = capture::calibrate_replay();
  output::append_replay_calibration(calibration, text);
  output::append_replay_plan(*report, text);
  if (auto printed = print(text); !printed) return printed;
  if (options.repeat == 0) return {};
  auto replayer = capture::SchedReplayer::start(report->plan, calibration.run_overhead, options.repeat);
  if (!replayer) return tl::unexpected(replayer.error());
  for (unsigned i = 0; i < options.repeat; ++i) {
    capture::ReplayRound round = (*replayer)->run_round();
    text.clear();
    output::append_replay_round(round, text);
    // Each round's line as it ends, as perf prints it.
    if (auto printed = print(text); !printed) return printed;
  }
  return {};
}

}  // namespace sonde::pipeline
