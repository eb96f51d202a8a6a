// sonde stat: perf stat's options; pipeline/stat_run counts and prints.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>

#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "pipeline/sdt_cache.hpp"
#include "pipeline/stat_run.hpp"

namespace sonde::cli {

int cmd_stat(int argc, char** argv) {
  pipeline::StatRunOptions run;
  pipeline::StatTargetSpec& target = run.target;
  EventOptions event_options;
  bool no_inherit = false, no_aggr = false, no_syscall_aggregation = false, big_num = true;
  int interval_ms = 0, interval_count = 0, timeout_ms = 0;
  std::string separator;
  CLI::App app{"Run a command and count its events (perf stat)", "sonde stat"};
  add_event_options(app, event_options, "stat");
  app.add_flag("-i,--no-inherit", no_inherit, "child tasks do not inherit counters");
  app.add_option("-p,--pid", target.pids, "count existing process ids (comma separated)");
  app.add_option("-t,--tid", target.tids, "count existing thread ids (comma separated)");
  app.add_flag("-a,--all-cpus", target.all_cpus, "system-wide collection from all CPUs");
  app.add_option("-C,--cpu", target.cpu_list, "list of CPUs to count (implies -a)");
  app.add_flag("-A,--no-aggr", no_aggr, "per-CPU counts, no aggregation");
  app.add_flag("--per-thread", target.per_thread, "per-thread counts");
  app.add_option("-I,--interval-print", interval_ms, "print counts every N milliseconds");
  app.add_option("--interval-count", interval_count, "stop after N intervals");
  app.add_option("--timeout", timeout_ms, "stop after N milliseconds");
  app.add_option("-x,--field-separator", separator, "CSV output with this separator");
  app.add_option("-r,--repeat", run.repeat, "repeat the command N times and print mean and spread");
  app.add_option("-o,--output", run.output_path, "write the counts to this file");
  app.add_flag("--append", run.append, "append to the -o file");
  app.add_flag("-d,--detailed", run.detail, "more detailed events (-d, -dd, -ddd)");
  app.add_flag("-n,--null", run.null_run, "count nothing, only time the command");
  app.add_flag("-v,--verbose", run.counting.verbose, "say what was opened and what failed");
  app.add_flag("-B,--big-num,!--no-big-num", big_num, "accepted for perf compatibility");
  app.add_flag("--no-syscall-aggregation", no_syscall_aggregation,
               "open one perf event per syscalls tracepoint instead of counting them in the kernel");
  // Cached SDT markers the events name are defined for the run, and removed when it ends; so are
  // those a killed run left defined.
  pipeline::TemporarySdtProbes sdt_probes;
  if (auto defined = define_sdt_events(sdt_probes, argc, argv, "stat"); !defined)
    return report_error("stat", defined.error());
  if (auto exit_code = parse_command_line(app, argc, argv, "stat")) return *exit_code;
  if (event_options.error) return report_error(*event_options.error);
  auto command = command_after_options(app, "stat");
  if (!command) return report_error(command.error());
  run.command = *command;

  // As perf: with neither a command nor a target, count the whole system until Ctrl-C.
  if (run.command.empty() && target.pids.empty() && target.tids.empty() && !target.system_wide())
    target.all_cpus = true;
  if (no_aggr && !target.system_wide())
    return report_usage_error("stat", "-A (per-CPU counts) needs system-wide counting: add -a or -C");
  if (target.per_thread && target.pids.empty() && target.tids.empty())
    return report_usage_error("stat", "--per-thread needs existing threads to list: add -p or -t");
  if (run.repeat < 1) return report_usage_error("stat", "-r needs a positive number of runs");
  if (run.repeat > 1 && run.command.empty())
    return report_usage_error("stat", "-r repeats a command; give one (sonde stat -r N -- CMD)");
  if (run.repeat > 1 && interval_ms > 0) return report_usage_error("stat", "-r and -I cannot be combined");
  // perf 6.1 takes any interval from 1 ms (it only warns below 100 ms).
  if (interval_ms < 0) return report_usage_error("stat", "-I needs a positive number of milliseconds");

  run.events = std::move(event_options.events);
  target.inherit = !no_inherit;
  run.aggregation = no_aggr             ? analysis::Aggregation::per_cpu
                    : target.per_thread ? analysis::Aggregation::per_thread
                                        : analysis::Aggregation::global;
  if (no_syscall_aggregation) run.counting.syscall_aggregation_threshold = 0;
  if (interval_ms > 0) run.interval = std::chrono::milliseconds(interval_ms);
  if (interval_count > 0) run.interval_count = interval_count;
  if (timeout_ms > 0) run.timeout = std::chrono::milliseconds(timeout_ms);
  if (!separator.empty()) run.csv_separator = separator;

  Diagnostics diagnostics([](const Diagnostics::Message& message) {
    fmt::print(stderr, "{}{}\n", message.kind == Diagnostics::Kind::warning ? "sonde stat: warning: " : "",
               message.text);
  });
  auto status = pipeline::run_stat(std::move(run), diagnostics);
  if (!status) return report_error("stat", status.error());
  return *status;
}

}  // namespace sonde::cli
