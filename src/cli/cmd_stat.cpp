// sonde stat: perf stat's options; pipeline/stat_run counts and prints.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>

#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "pipeline/stat_run.hpp"

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

  pipeline::StatRunOptions run;
  run.events = std::move(options.event_options.events);
  run.detail = options.detail;
  run.null_run = options.null_run;
  run.command = options.command;
  run.target.pids = options.pids;
  run.target.tids = options.tids;
  run.target.cpu_list = options.cpu_list;
  run.target.all_cpus = options.all_cpus;
  run.target.per_thread = options.per_thread;
  run.target.inherit = !options.no_inherit;
  run.aggregation = options.no_aggr      ? analysis::Aggregation::per_cpu
                    : options.per_thread ? analysis::Aggregation::per_thread
                                         : analysis::Aggregation::global;
  run.counting.verbose = options.verbose;
  if (options.no_syscall_aggregation) run.counting.syscall_aggregation_threshold = 0;
  if (options.interval_ms > 0) run.interval = std::chrono::milliseconds(options.interval_ms);
  if (options.interval_count > 0) run.interval_count = options.interval_count;
  if (options.timeout_ms > 0) run.timeout = std::chrono::milliseconds(options.timeout_ms);
  run.repeat = options.repeat;
  if (!options.separator.empty()) run.csv_separator = options.separator;
  run.output_path = options.output_path;
  run.append = options.append;

  Diagnostics diagnostics([](const Diagnostics::Message& message) {
    fmt::print(stderr, "{}{}\n", message.kind == Diagnostics::Kind::warning ? "sonde stat: warning: " : "",
               message.text);
  });
  auto status = pipeline::run_stat(std::move(run), diagnostics);
  if (!status) return report_error(status.error().with_context("sonde stat"));
  return *status;
}

}  // namespace sonde::cli
