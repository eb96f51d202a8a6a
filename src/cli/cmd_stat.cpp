// sonde stat: perf stat's options; pipeline/stat_run counts and prints.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>

#include "base/strings.hpp"
#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "events/parse_events.hpp"
#include "pipeline/sdt_cache.hpp"
#include "pipeline/stat_pmu_requests.hpp"
#include "pipeline/stat_run.hpp"

namespace sonde::cli {

int cmd_stat(int argc, char** argv) {
  pipeline::StatRunOptions run;
  pipeline::StatTargetSpec& target = run.target;
  EventOptions event_options;
  bool no_inherit = false, no_aggr = false, no_syscall_aggregation = false, big_num = true;
  bool per_core = false, per_die = false, per_socket = false, per_node = false, all_user = false,
       all_kernel = false, group = false, no_csv_summary = false, merge = true, hybrid_merge = false;
  int interval_ms = 0, interval_count = 0, timeout_ms = 0;
  std::optional<int> delay_ms, log_fd;
  std::string separator;
  pipeline::PmuOnlyRequests pmu_only;
  bool metric_no_group = false, metric_no_merge = false;
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
  app.add_flag("-j,--json-output", run.json, "print counts in JSON format");
  app.add_flag("--per-core", per_core, "aggregate counts per physical processor core (with -a)");
  app.add_flag("--per-die", per_die, "aggregate counts per processor die (with -a)");
  app.add_flag("--per-socket", per_socket, "aggregate counts per processor socket (with -a)");
  app.add_flag("--per-node", per_node, "aggregate counts per NUMA node (with -a)");
  app.add_flag("--all-user", all_user, "count every event in user space only");
  app.add_flag("--all-kernel", all_kernel, "count every event in kernel space only");
  app.add_flag("-g,--group", group, "put the counters into one counter group");
  app.add_flag("-c,--scale,!--no-scale", run.scale, "scale multiplexed counts to the whole time (default)");
  app.add_flag("--summary", run.summary, "with -I: the whole run's counts after the intervals");
  app.add_flag("--no-csv-summary", no_csv_summary, "with --summary -x: no 'summary' first field");
  app.add_flag("--interval-clear", run.interval_clear, "with -I: clear the terminal before each interval");
  app.add_flag("--table", run.run_table, "with -r: each run's time before the mean");
  app.add_flag("--metric-only", run.metric_only,
               "only the metrics, a column each and a row per CPU or group");
  app.add_flag("--quiet", run.quiet, "print no counts (the exit status is the command's)");
  app.add_option("--log-fd", log_fd, "write the counts to this open descriptor instead of stderr");
  app.add_option("--pre", run.pre_command, "shell command to run before each run");
  app.add_option("--post", run.post_command, "shell command to run after each run");
  app.add_flag("-S,--sync", run.sync_first, "call sync() before each run");
  app.add_option("-D,--delay", delay_ms,
                 "start counting N ms after the command starts (-1: on --control enable)");
  app.add_option("--control", run.control, "fifo:CTL[,ACK] or fd:CTL[,ACK]: enable/disable commands");
  app.add_flag("--no-merge,!--merge", merge, "accepted: sonde does not merge same-named events");
  app.add_flag("--hybrid-merge", hybrid_merge, "accepted: this is for hybrid CPUs (P and E cores)");
  std::string cgroups, for_each_cgroup;
  app.add_option("-G,--cgroup", cgroups,
                 "with -a: count the events in these cgroups (one per event, in order)");
  app.add_option("--for-each-cgroup", for_each_cgroup, "with -a: every event once in each of these cgroups");
  app.add_option("-M,--metrics", pmu_only.metrics, "metrics to compute (needs the CPU's PMU)");
  app.add_flag("--metric-no-group", metric_no_group, "with -M: do not group metric events");
  app.add_flag("--metric-no-merge", metric_no_merge, "with -M: do not share events between metrics");
  app.add_flag("--topdown", pmu_only.topdown,
               "top-down statistics (needs the CPU's topdown events, with -a)");
  app.add_option("--td-level", pmu_only.td_level, "with --topdown: the level (0: the deepest)");
  app.add_flag("--smi-cost", pmu_only.smi_cost, "measure SMI cost (needs freeze_on_smi)");
  app.add_flag("-T,--transaction", pmu_only.transaction,
               "hardware transaction statistics (needs TSX events)");
  app.add_option("--iostat", pmu_only.iostat, "I/O metrics (needs the uncore IIO PMUs)")->expected(0, 1);
  app.add_option("--cputype", pmu_only.cputype, "hybrid CPUs: count on core or atom only");
  app.add_flag("--percore-show-thread", pmu_only.percore_show_thread,
               "with percore events: each CPU's core total");
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
  if (auto refused = pipeline::check_pmu_only_requests(pmu_only, target.system_wide()); !refused)
    return report_error("stat", refused.error());
  int groupings =
      int(per_core) + int(per_die) + int(per_socket) + int(per_node) + int(no_aggr) + int(target.per_thread);
  if (groupings > 1)
    return report_usage_error(
        "stat", "give one of -A, --per-thread, --per-core, --per-die, --per-socket, --per-node");
  if ((per_core || per_die || per_socket || per_node) && !target.system_wide())
    return report_usage_error("stat",
                              "--per-core/--per-die/--per-socket/--per-node group CPUs: add -a or -C");
  if (all_user && all_kernel)
    return report_usage_error("stat", "--all-user and --all-kernel exclude each other");
  if (log_fd && !run.output_path.empty())
    return report_usage_error("stat", "-o and --log-fd exclude each other");
  if (log_fd && *log_fd <= 0)
    return report_usage_error("stat", "--log-fd needs a descriptor above 0 (3>file --log-fd 3)");
  if (run.json && !separator.empty()) return report_usage_error("stat", "-j and -x exclude each other");
  if (run.summary && interval_ms <= 0)
    return report_usage_error("stat", "--summary goes with -I (interval output)");
  if (delay_ms && *delay_ms < -1)
    return report_usage_error("stat", "-D needs milliseconds, or -1 to wait for --control");
  if (target.per_thread && target.pids.empty() && target.tids.empty())
    return report_usage_error("stat", "--per-thread needs existing threads to list: add -p or -t");
  if (run.repeat < 1) return report_usage_error("stat", "-r needs a positive number of runs");
  // perf's refusals, in its words.
  if (run.metric_only && run.repeat > 1)
    return report_error("stat", Error{"--metric-only is not supported with -r"});
  if (run.metric_only && target.per_thread)
    return report_error("stat", Error{"--metric-only is not supported with --per-thread"});
  if (run.repeat > 1 && run.command.empty())
    return report_usage_error("stat", "-r repeats a command; give one (sonde stat -r N -- CMD)");
  if (run.repeat > 1 && interval_ms > 0) return report_usage_error("stat", "-r and -I cannot be combined");
  // perf 6.1 takes any interval from 1 ms (it only warns below 100 ms).
  if (interval_ms < 0) return report_usage_error("stat", "-I needs a positive number of milliseconds");

  run.events = std::move(event_options.events);
  if ((!cgroups.empty() || !for_each_cgroup.empty()) && !target.system_wide())
    return report_usage_error("stat", "-G and --for-each-cgroup count system-wide: add -a or -C");
  if (!cgroups.empty() && !for_each_cgroup.empty())
    return report_usage_error("stat", "-G and --for-each-cgroup exclude each other; give one");
  if (!cgroups.empty() || !for_each_cgroup.empty()) {
    // Cgroups name events, so perf's default events are made here when none were given.
    if (run.events.empty() && !run.null_run)
      if (auto parsed = pipeline::parse_default_stat_events(true, run.detail, run.events); !parsed)
        return report_error("stat", parsed.error());
    if (!cgroups.empty() && !events::assign_cgroups(run.events, split(cgroups, ',')))
      return report_usage_error("stat", "-G names more cgroups than there are events; give one per event");
    if (!for_each_cgroup.empty())
      run.events = events::expand_for_each_cgroup(run.events, split(for_each_cgroup, ','));
  }
  if (group) events::group_all(run.events);
  if (all_user) run.privilege = pipeline::StatRunOptions::Privilege::user;
  if (all_kernel) run.privilege = pipeline::StatRunOptions::Privilege::kernel;
  run.csv_summary_prefix = !no_csv_summary;
  if (log_fd) run.log_fd = *log_fd;
  if (delay_ms && *delay_ms != 0) run.delay = std::chrono::milliseconds(*delay_ms);
  target.inherit = !no_inherit;
  run.aggregation = no_aggr             ? analysis::Aggregation::per_cpu
                    : target.per_thread ? analysis::Aggregation::per_thread
                    : per_core          ? analysis::Aggregation::per_core
                    : per_die           ? analysis::Aggregation::per_die
                    : per_socket        ? analysis::Aggregation::per_socket
                    : per_node          ? analysis::Aggregation::per_node
                                        : analysis::Aggregation::global;
  if (no_syscall_aggregation) run.counting.syscall_aggregation_threshold = 0;
  if (interval_ms > 0) run.interval = std::chrono::milliseconds(interval_ms);
  if (interval_count > 0) run.interval_count = interval_count;
  if (timeout_ms > 0) run.timeout = std::chrono::milliseconds(timeout_ms);
  if (!separator.empty()) run.csv_separator = separator;

  Diagnostics diagnostics([quiet = run.quiet](const Diagnostics::Message& message) {
    if (quiet) return;  // perf's --quiet: no messages or warnings either
    fmt::print(stderr, "{}{}\n", message.kind == Diagnostics::Kind::warning ? "sonde stat: warning: " : "",
               message.text);
  });
  auto status = pipeline::run_stat(std::move(run), diagnostics);
  if (!status) return report_error("stat", status.error());
  return *status;
}

}  // namespace sonde::cli
