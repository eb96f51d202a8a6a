// sonde stat: perf stat's options, wired from event parsing through counting to the printer.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <optional>

#include "analysis/stat/stat_table.hpp"
#include "base/strings.hpp"
#include "capture/counting_run.hpp"
#include "capture/signals.hpp"
#include "capture/tasks.hpp"
#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "events/parse_events.hpp"
#include "kernel/cpus.hpp"
#include "output/stat/stat_printer.hpp"

namespace sonde::cli {

namespace {

struct StatOptions {
  EventOptions event_options;
  bool no_inherit = false;
  std::string pids, tids, cpu_list;
  bool all_cpus = false, no_aggr = false, per_thread = false, null_run = false, verbose = false;
  bool no_syscall_aggregation = false;
  int interval_ms = 0, interval_count = 0, timeout_ms = 0, repeat = 1, detail = 0;
  std::string separator, output_path;
  bool append = false;
  std::vector<std::string> command;
};

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

std::string describe_target(const StatOptions& options) {
  if (!options.pids.empty()) return fmt::format("process id '{}'", options.pids);
  if (!options.tids.empty()) return fmt::format("thread id '{}'", options.tids);
  if (!options.cpu_list.empty()) return fmt::format("'CPU(s) {}'", options.cpu_list);
  if (options.all_cpus) return "'system wide'";
  return fmt::format("'{}'", join(options.command, " "));
}

Result<capture::CountingTarget> build_target(const StatOptions& options) {
  capture::CountingTarget target;
  target.inherit = !options.no_inherit;
  target.per_thread = options.per_thread;
  if (!options.pids.empty()) {
    auto ids = capture::parse_task_ids(options.pids, "process id");
    if (!ids) return tl::unexpected(ids.error());
    target.kind = capture::CountingTarget::Kind::processes;
    target.ids = *ids;
  } else if (!options.tids.empty()) {
    auto ids = capture::parse_task_ids(options.tids, "thread id");
    if (!ids) return tl::unexpected(ids.error());
    target.kind = capture::CountingTarget::Kind::threads;
    target.ids = *ids;
  } else if (options.all_cpus || !options.cpu_list.empty()) {
    target.kind = capture::CountingTarget::Kind::system;
    if (!options.cpu_list.empty()) {
      auto cpus = kernel::parse_cpu_list(options.cpu_list);
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

int cmd_stat(int argc, char** argv) {
  StatOptions options;
  CLI::App app{"Run a command and count its events (perf stat)", "sonde stat"};
  add_event_options(app, options.event_options, "stat");
  app.add_flag("-i,--no-inherit", options.no_inherit, "child tasks do not inherit counters");
  app.add_option("-p,--pid", options.pids, "count existing process ids (comma separated)");
  app.add_option("-t,--tid", options.tids, "count existing thread ids (comma separated)");
  app.add_flag("-a,--all-cpus", options.all_cpus, "system-wide collection from all CPUs");
  app.add_option("-C,--cpu", options.cpu_list, "list of CPUs to count (implies -a)");
  app.add_flag("-A,--no-aggr", options.no_aggr, "per-CPU counts, no aggregation");
  app.add_flag("--per-thread", options.per_thread, "per-thread counts");
  app.add_option("-I,--interval-print", options.interval_ms, "print counts every N milliseconds");
  app.add_option("--interval-count", options.interval_count, "stop after N intervals");
  app.add_option("--timeout", options.timeout_ms, "stop after N milliseconds");
  app.add_option("-x,--field-separator", options.separator, "CSV output with this separator");
  app.add_option("-r,--repeat", options.repeat, "repeat the command N times and print mean and spread");
  app.add_option("-o,--output", options.output_path, "write the counts to this file");
  app.add_flag("--append", options.append, "append to the -o file");
  app.add_flag("-d,--detailed", options.detail, "more detailed events (-d, -dd, -ddd)");
  app.add_flag("-n,--null", options.null_run, "count nothing, only time the command");
  app.add_flag("-v,--verbose", options.verbose, "say what was opened and what failed");
  bool big_num = true;
  app.add_flag("-B,--big-num,!--no-big-num", big_num, "accepted for perf compatibility");
  app.add_flag("--no-syscall-aggregation", options.no_syscall_aggregation,
               "open one perf event per syscalls tracepoint instead of counting them in the kernel");
  if (auto exit_code = parse_command_line(app, argc, argv, "stat")) return *exit_code;
  if (options.event_options.error) return report_error(*options.event_options.error);
  auto command = command_after_options(app, "stat");
  if (!command) return report_error(command.error());
  options.command = *command;

  bool has_target =
      !options.pids.empty() || !options.tids.empty() || options.all_cpus || !options.cpu_list.empty();
  // As perf: with neither a command nor a target, count the whole system until Ctrl-C.
  if (options.command.empty() && !has_target) options.all_cpus = true;
  if (options.no_aggr && !(options.all_cpus || !options.cpu_list.empty()))
    return report_error({"sonde stat: -A (per-CPU counts) needs system-wide counting: add -a or -C", Error::Kind::usage});
  if (options.per_thread && options.pids.empty() && options.tids.empty())
    return report_error({"sonde stat: --per-thread needs existing threads to list: add -p or -t", Error::Kind::usage});
  if (options.repeat < 1) return report_error({"sonde stat: -r needs a positive number of runs", Error::Kind::usage});
  if (options.repeat > 1 && options.command.empty())
    return report_error({"sonde stat: -r repeats a command; give one (sonde stat -r N -- CMD)", Error::Kind::usage});
  if (options.repeat > 1 && options.interval_ms > 0)
    return report_error({"sonde stat: -r and -I cannot be combined", Error::Kind::usage});
  if (options.interval_ms < 0 || (options.interval_ms > 0 && options.interval_ms < 10))
    return report_error({"sonde stat: -I needs at least 10 milliseconds", Error::Kind::usage});

  if (options.event_options.events.empty() && !options.null_run) {
    bool system_wide = options.all_cpus || !options.cpu_list.empty();
    if (auto parsed =
            events::parse_events(default_events(system_wide, options.detail), options.event_options.events);
        !parsed)
      return report_error(parsed.error());
  }

  auto target = build_target(options);
  if (!target) return report_error(target.error().with_context("sonde stat"));

  std::FILE* out = stderr;
  if (!options.output_path.empty()) {
    out = std::fopen(options.output_path.c_str(), options.append ? "a" : "w");
    if (!out)
      return report_error(
          {fmt::format("sonde stat: cannot write {}: {}", options.output_path, errno_text(errno))});
  }
  if (out != stderr) output::StatPrinter(out, {}).print_started_on();
  struct FileCloser {
    std::FILE* file;
    ~FileCloser() {
      if (file != stderr) std::fclose(file);
    }
  } closer{out};

  output::StatPrintOptions print_options;
  if (!options.separator.empty()) print_options.csv_separator = options.separator;
  print_options.interval = options.interval_ms > 0;
  print_options.runs = options.repeat;
  output::StatPrinter printer(out, print_options);

  analysis::Aggregation aggregation = options.no_aggr      ? analysis::Aggregation::per_cpu
                                      : options.per_thread ? analysis::Aggregation::per_thread
                                                           : analysis::Aggregation::global;
  capture::CountingRunOptions run_options;
  run_options.command = options.command;
  run_options.target = *target;
  run_options.counting.verbose = options.verbose;
  if (options.no_syscall_aggregation) run_options.counting.syscall_aggregation_threshold = 0;
  if (options.interval_ms > 0) run_options.interval = std::chrono::milliseconds(options.interval_ms);
  if (options.interval_count > 0) run_options.interval_count = options.interval_count;
  if (options.timeout_ms > 0) run_options.timeout = std::chrono::milliseconds(options.timeout_ms);

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
    auto lines = analysis::build_stat_lines(options.event_options.events, readings, supported,
                                            stat_slots(slots), aggregation, elapsed_ns - previous_ns);
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
    auto result = capture::run_counting(options.event_options.events, run_options, on_interval);
    if (!result) return report_error(result.error().with_context("sonde stat"));
    if (options.interval_ms > 0) {
      last = std::move(*result);
      break;
    }
    std::vector<std::vector<kernel::CounterReading>> readings;
    std::vector<bool> supported;
    split_counts(result->counts, readings, supported);
    repeats.add(analysis::build_stat_lines(options.event_options.events, readings, supported,
                                           stat_slots(result->slots), aggregation, result->elapsed_ns));
    elapsed.add(result->elapsed_ns / 1e9);
    if (result->syscall_follow_failures > 0)
      fmt::print(
          stderr,
          "sonde stat: warning: {} new tasks could not be followed by the in-kernel syscall counter; their "
          "calls are missing (use --no-syscall-aggregation)\n",
          result->syscall_follow_failures);
    bool interrupted = result->stopped_by_signal != 0 || signals.poll().number != 0;
    last = std::move(*result);
    if (interrupted) break;
  }

  if (options.interval_ms == 0) {
    printer.print_header(describe_target(options));
    auto lines = repeats.mean_lines();
    if (options.repeat == 1)
      for (auto& line : lines) line.noise_percent.reset();
    printer.print_counters(lines);
    std::optional<std::pair<double, double>> user_sys;
    bool system_wide = options.all_cpus || !options.cpu_list.empty();
    if (last->had_workload && !system_wide && options.repeat == 1) {
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

}  // namespace sonde::cli
