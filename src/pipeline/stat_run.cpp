#include "pipeline/stat_run.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "analysis/stat/counter_stats.hpp"
#include "base/file.hpp"
#include "base/strings.hpp"
#include "capture/counting_run.hpp"
#include "capture/open_event.hpp"
#include "capture/signals.hpp"
#include "capture/tasks.hpp"
#include "events/parse_events.hpp"
#include "kernel/cpus.hpp"
#include "output/stat/stat_printer.hpp"

namespace sonde::pipeline {

namespace {

// perf 6.1's default events, and what -d, -dd and -ddd add.
std::string default_events(bool system_wide, int detail) {
  std::string list = system_wide ? "cpu-clock" : "task-clock";
  list += ",context-switches,cpu-migrations,page-faults,cycles,instructions,branches,branch-misses";
  if (detail >= 1) list += ",L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses";
  if (detail >= 2)
    list += ",L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,iTLB-loads,iTLB-load-misses";
  if (detail >= 3) list += ",L1-dcache-prefetches,L1-dcache-prefetch-misses";
  return list;
}

// The header's "for '...'" part.
std::string describe_target(const StatTargetSpec& target, const std::vector<std::string>& command) {
  if (!target.pids.empty()) return fmt::format("process id '{}'", target.pids);
  if (!target.tids.empty()) return fmt::format("thread id '{}'", target.tids);
  if (!target.cpu_list.empty()) return fmt::format("'CPU(s) {}'", target.cpu_list);
  if (target.all_cpus) return "'system wide'";
  return fmt::format("'{}'", join(command, " "));
}

Result<capture::CountingTarget> build_target(const StatTargetSpec& spec) {
  capture::CountingTarget target;
  target.inherit = spec.inherit;
  target.per_thread = spec.per_thread;
  if (!spec.pids.empty()) {
    auto ids = capture::parse_task_ids(spec.pids, "process id");
    if (!ids) return tl::unexpected(ids.error());
    target.kind = capture::CountingTarget::Kind::processes;
    target.ids = *ids;
  } else if (!spec.tids.empty()) {
    auto ids = capture::parse_task_ids(spec.tids, "thread id");
    if (!ids) return tl::unexpected(ids.error());
    target.kind = capture::CountingTarget::Kind::threads;
    target.ids = *ids;
  } else if (spec.system_wide()) {
    target.kind = capture::CountingTarget::Kind::system;
    if (!spec.cpu_list.empty()) {
      auto cpus = kernel::parse_cpu_list(spec.cpu_list);
      if (!cpus) return tl::unexpected(cpus.error());
      auto online = kernel::online_cpus();
      for (int cpu : *cpus)
        if (std::find(online.begin(), online.end(), cpu) == online.end())
          return failf("CPU {} is not online (online: {}); check -C", cpu,
                       fmt::format("{}", fmt::join(online, ",")));
      target.cpus = *cpus;
    } else {
      target.cpus = kernel::online_cpus();
    }
  } else {
    target.kind = capture::CountingTarget::Kind::workload;
  }
  return target;
}

std::vector<analysis::StatSlot> stat_slots(const std::vector<capture::Slot>& slots) {
  std::vector<analysis::StatSlot> result;
  for (const auto& slot : slots) result.push_back({slot.cpu, slot.tid, slot.comm});
  return result;
}

void split_counts(const std::vector<capture::EventCounts>& counts,
                  std::vector<std::vector<kernel::CounterReading>>& readings, std::vector<bool>& supported) {
  readings.clear();
  supported.clear();
  for (const auto& count : counts) {
    readings.push_back(count.slots);
    supported.push_back(count.supported);
  }
}

}  // namespace

Result<int> run_stat(StatRunOptions options, Diagnostics& diagnostics) {
  if (options.events.empty() && !options.null_run) {
    if (auto parsed = events::parse_events(default_events(options.target.system_wide(), options.detail),
                                           options.events);
        !parsed)
      return tl::unexpected(parsed.error());
  }
  {
    Diagnostics kept;  // the note is perf's -v line
    capture::fall_back_to_user_only(options.events, options.counting.verbose ? diagnostics : kept);
  }
  auto target = build_target(options.target);
  if (!target) return tl::unexpected(target.error());

  std::FILE* out = stderr;
  if (!options.output_path.empty()) {
    if (auto refused = refuse_planted_link(options.output_path); !refused)
      return tl::unexpected(refused.error());
    out = std::fopen(options.output_path.c_str(), options.append ? "a" : "w");
    if (!out) return failf("cannot write {}: {}", options.output_path, errno_text(errno));
    struct stat st {};
    if (::fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode))
      ::fchmod(fileno(out), 0600);  // private, as perf.data
  }
  if (out != stderr) output::StatPrinter(out, {}).print_started_on();
  struct FileCloser {
    std::FILE* file;
    ~FileCloser() {
      if (file != stderr) std::fclose(file);
    }
  } closer{out};

  output::StatPrintOptions print_options;
  print_options.csv_separator = options.csv_separator;
  print_options.interval = options.interval.has_value();
  print_options.runs = options.repeat;
  output::StatPrinter printer(out, print_options);

  capture::CountingRunOptions run_options;
  run_options.command = options.command;
  run_options.target = *target;
  run_options.counting = options.counting;
  run_options.interval = options.interval;
  run_options.interval_count = options.interval_count;
  run_options.timeout = options.timeout;

  // Interval output: each tick prints the counts since the previous one.
  std::vector<capture::EventCounts> previous;
  double previous_ns = 0;
  auto on_interval = [&](double elapsed_ns, const std::vector<capture::Slot>& slots,
                         const std::vector<capture::EventCounts>& cumulative) {
    std::vector<std::vector<kernel::CounterReading>> readings;
    std::vector<bool> supported;
    split_counts(cumulative, readings, supported);
    if (!previous.empty()) {
      for (size_t e = 0; e < readings.size(); ++e)
        for (size_t s = 0; s < readings[e].size() && s < previous[e].slots.size(); ++s)
          readings[e][s] = analysis::difference(readings[e][s], previous[e].slots[s]);
    }
    auto lines = analysis::build_stat_lines(options.events, readings, supported, stat_slots(slots),
                                            options.aggregation, elapsed_ns - previous_ns);
    printer.print_counters(lines, elapsed_ns);
    std::fflush(out);
    previous = cumulative;
    previous_ns = elapsed_ns;
  };

  // Held for all runs and the printing: a Ctrl-C between runs or while printing ends the
  // measurement cleanly instead of killing sonde with nothing printed.
  capture::BlockedSignals signals;
  analysis::StatRepeats repeats;
  analysis::RunningStats elapsed;
  std::optional<capture::CountingRunResult> last;
  for (int run = 0; run < options.repeat; ++run) {
    auto result = capture::run_counting(options.events, run_options, on_interval, diagnostics);
    if (!result) return tl::unexpected(result.error());
    if (options.interval) {
      last = std::move(*result);
      break;
    }
    std::vector<std::vector<kernel::CounterReading>> readings;
    std::vector<bool> supported;
    split_counts(result->counts, readings, supported);
    repeats.add(analysis::build_stat_lines(options.events, readings, supported, stat_slots(result->slots),
                                           options.aggregation, result->elapsed_ns));
    elapsed.add(result->elapsed_ns / 1e9);
    if (result->syscall_follow_failures > 0)
      diagnostics.warningf(
          "{} new tasks could not be followed by the in-kernel syscall counter; their calls are missing "
          "(use --no-syscall-aggregation)",
          result->syscall_follow_failures);
    bool interrupted = result->stopped_by_signal != 0 || signals.poll().number != 0;
    last = std::move(*result);
    if (interrupted) break;
  }

  if (!options.interval) {
    printer.print_header(describe_target(options.target, options.command));
    auto lines = repeats.mean_lines();
    if (options.repeat == 1)
      for (auto& line : lines) line.noise_percent.reset();
    printer.print_counters(lines);
    std::optional<std::pair<double, double>> user_sys;
    if (last->had_workload && !options.target.system_wide() && options.repeat == 1) {
      auto seconds = [](const timeval& tv) {
        return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
      };
      user_sys = std::pair{seconds(last->workload_usage.ru_utime), seconds(last->workload_usage.ru_stime)};
    }
    printer.print_footer(elapsed.mean(), elapsed.stddev_of_mean(), elapsed.relative_stddev_percent(),
                         user_sys);
  }
  return last->had_workload ? last->exit_status : 0;
}

}  // namespace sonde::pipeline
