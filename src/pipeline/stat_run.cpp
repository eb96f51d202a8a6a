#include "pipeline/stat_run.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "analysis/stat/counter_stats.hpp"
#include "base/file.hpp"
#include "base/strings.hpp"
#include "capture/control_channel.hpp"
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

// The slots as the table groups them; where each CPU sits is read only when CPUs are grouped.
std::vector<analysis::StatSlot> stat_slots(const std::vector<capture::Slot>& slots, bool with_places) {
  std::vector<analysis::StatSlot> result;
  for (const auto& slot : slots) {
    kernel::CpuPlace place = with_places && slot.cpu >= 0 ? kernel::cpu_place(slot.cpu) : kernel::CpuPlace{};
    result.push_back({slot.cpu, slot.tid, slot.comm, place.socket, place.die, place.core, place.node});
  }
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

// --all-user and --all-kernel, as perf stat applies them: each event leaves out the other side.
void restrict_privilege(std::vector<events::EventSpec>& events, StatRunOptions::Privilege privilege) {
  for (auto& event : events) {
    if (privilege == StatRunOptions::Privilege::user) event.attr.exclude_kernel = 1;
    if (privilege == StatRunOptions::Privilege::kernel) event.attr.exclude_user = 1;
  }
}

// Where the counts go: stderr, the -o file (private, begun with perf's "# started on" line) or the
// --log-fd descriptor.
Result<std::FILE*> open_output(const StatRunOptions& options) {
  if (options.log_fd >= 0) {
    int fd = ::fcntl(options.log_fd, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
      return failf("--log-fd {} is not an open descriptor; open it in the shell (3>file)", options.log_fd);
    std::FILE* out = ::fdopen(fd, options.append ? "a" : "w");
    if (!out) return failf("cannot write to --log-fd {}: {}", options.log_fd, errno_text(errno));
    return out;
  }
  if (options.output_path.empty()) return stderr;
  if (auto refused = refuse_planted_link(options.output_path); !refused)
    return tl::unexpected(refused.error());
  std::FILE* out = std::fopen(options.output_path.c_str(), options.append ? "a" : "w");
  if (!out) return failf("cannot write {}: {}", options.output_path, errno_text(errno));
  struct stat st {};
  if (::fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode)) ::fchmod(fileno(out), 0600);  // as perf.data
  output::StatPrinter(out, {}).print_started_on();
  return out;
}

// --pre and --post: a shell command around each run; its failure ends sonde stat, as in perf.
Result<void> run_hook(const std::string& command, const char* option) {
  if (command.empty()) return {};
  int status = std::system(command.c_str());
  if (status == -1) return failf("cannot run the {} command: {}", option, errno_text(errno));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return failf("the {} command '{}' failed (exit status {}); fix it or drop {}", option, command,
                 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), option);
  return {};
}

}  // namespace

Result<void> parse_default_stat_events(bool system_wide, int detail, std::vector<events::EventSpec>& events) {
  return events::parse_events(default_events(system_wide, detail), events);
}

Result<int> run_stat(StatRunOptions options, Diagnostics& diagnostics) {
  if (options.events.empty() && !options.null_run) {
    if (auto parsed = parse_default_stat_events(options.target.system_wide(), options.detail, options.events);
        !parsed)
      return tl::unexpected(parsed.error());
  }
  restrict_privilege(options.events, options.privilege);
  {
    Diagnostics kept;  // the note is perf's -v line
    capture::fall_back_to_user_only(options.events, options.counting.verbose ? diagnostics : kept);
  }
  auto target = build_target(options.target);
  if (!target) return tl::unexpected(target.error());
  std::optional<capture::ControlChannel> control;
  if (!options.control.empty()) {
    auto opened = capture::ControlChannel::open(options.control);
    if (!opened) return tl::unexpected(opened.error());
    control.emplace(std::move(*opened));
  }

  auto opened_out = open_output(options);
  if (!opened_out) return tl::unexpected(opened_out.error());
  std::FILE* out = *opened_out;
  struct FileCloser {
    std::FILE* file;
    ~FileCloser() {
      if (file != stderr) std::fclose(file);
    }
  } closer{out};
  if (options.interval_clear && !::isatty(fileno(out)))
    return fail("--interval-clear clears a terminal; the counts do not go to one (drop it, or -o/--log-fd)");

  output::StatPrintOptions print_options;
  print_options.csv_separator = options.csv_separator;
  print_options.json = options.json;
  print_options.interval = options.interval.has_value();
  print_options.interval_clear = options.interval_clear;
  print_options.runs = options.repeat;
  print_options.run_table = options.run_table;
  print_options.metric_only = options.metric_only;
  // perf 6.1.y names the metric columns over -A's rows only (its header skips every other mode).
  if (options.metric_only && options.aggregation == analysis::Aggregation::per_cpu)
    print_options.metric_header = analysis::metric_only_header(options.events);
  output::StatPrinter printer(out, print_options);
  const bool print = !options.quiet;

  capture::CountingRunOptions run_options;
  run_options.command = options.command;
  run_options.target = *target;
  run_options.counting = options.counting;
  run_options.interval = options.interval;
  run_options.interval_count = options.interval_count;
  run_options.timeout = options.timeout;
  run_options.delay = options.delay;
  run_options.control = control ? &*control : nullptr;

  analysis::StatTableOptions table_options{options.aggregation, options.scale};
  const bool groups_cpus = options.aggregation != analysis::Aggregation::global &&
                           options.aggregation != analysis::Aggregation::per_cpu &&
                           options.aggregation != analysis::Aggregation::per_thread;
  std::vector<analysis::StatSlot> table_slots;
  auto lines_of = [&](const std::vector<capture::Slot>& slots,
                      const std::vector<capture::EventCounts>& counts,
                      const std::vector<capture::EventCounts>* before, double elapsed_ns) {
    std::vector<std::vector<kernel::CounterReading>> readings;
    std::vector<bool> supported;
    split_counts(counts, readings, supported);
    if (before && !before->empty()) {
      for (size_t e = 0; e < readings.size(); ++e)
        for (size_t s = 0; s < readings[e].size() && s < (*before)[e].slots.size(); ++s)
          readings[e][s] = analysis::difference(readings[e][s], (*before)[e].slots[s]);
    }
    // Per CPU the slots are the same at every interval and run: where each CPU sits is read once.
    if (!groups_cpus || table_slots.size() != slots.size()) table_slots = stat_slots(slots, groups_cpus);
    return analysis::build_stat_lines(options.events, readings, supported, table_slots, table_options,
                                      elapsed_ns);
  };

  // Interval output: each tick prints the counts since the previous one.
  std::vector<capture::EventCounts> previous;
  double previous_ns = 0;
  auto on_interval = [&](double elapsed_ns, const std::vector<capture::Slot>& slots,
                         const std::vector<capture::EventCounts>& cumulative) {
    if (print) {
      printer.print_counters(lines_of(slots, cumulative, &previous, elapsed_ns - previous_ns), elapsed_ns);
      std::fflush(out);
    }
    previous = cumulative;
    previous_ns = elapsed_ns;
  };

  auto user_sys_of = [&](const capture::CountingRunResult& run) -> std::optional<std::pair<double, double>> {
    if (!run.had_workload || options.target.system_wide() || options.repeat != 1) return std::nullopt;
    auto seconds = [](const timeval& tv) {
      return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
    };
    return std::pair{seconds(run.workload_usage.ru_utime), seconds(run.workload_usage.ru_stime)};
  };

  // Held for all runs and the printing: a Ctrl-C between runs or while printing ends the
  // measurement cleanly instead of killing sonde with nothing printed.
  capture::BlockedSignals signals;
  analysis::StatRepeats repeats;
  analysis::RunningStats elapsed;
  std::vector<double> run_seconds;
  std::optional<capture::CountingRunResult> last;
  for (int run = 0; run < options.repeat; ++run) {
    if (auto hook = run_hook(options.pre_command, "--pre"); !hook) return tl::unexpected(hook.error());
    if (options.sync_first) ::sync();
    auto result = capture::run_counting(options.events, run_options, on_interval, diagnostics);
    if (!result) return tl::unexpected(result.error());
    if (auto hook = run_hook(options.post_command, "--post"); !hook) return tl::unexpected(hook.error());
    if (options.interval) {
      last = std::move(*result);
      break;
    }
    repeats.add(lines_of(result->slots, result->counts, nullptr, result->elapsed_ns));
    elapsed.add(result->elapsed_ns / 1e9);
    run_seconds.push_back(result->elapsed_ns / 1e9);
    if (result->syscall_follow_failures > 0)
      diagnostics.warningf(
          "{} new tasks could not be followed by the in-kernel syscall counter; their calls are missing "
          "(use --no-syscall-aggregation)",
          result->syscall_follow_failures);
    // A SIGCHLD left from a --pre/--post command is not a reason to stop.
    bool interrupted = result->stopped_by_signal != 0;
    for (auto pending = signals.poll(); pending.number != 0; pending = signals.poll())
      interrupted = interrupted || capture::is_stop_request(pending.number);
    last = std::move(*result);
    if (interrupted) break;
  }

  if (print && options.interval && options.summary) {
    // The whole run, as the single-measurement layout prints it.
    printer.print_header(describe_target(options.target, options.command));
    printer.print_summary_counters(lines_of(last->slots, last->counts, nullptr, last->elapsed_ns),
                                   options.csv_summary_prefix);
    printer.print_footer(last->elapsed_ns / 1e9, 0, std::nullopt, user_sys_of(*last));
  } else if (print && !options.interval) {
    printer.print_header(describe_target(options.target, options.command));
    auto lines = repeats.mean_lines();
    if (options.repeat == 1)
      for (auto& line : lines) line.noise_percent.reset();
    printer.print_counters(lines);
    printer.print_footer(elapsed.mean(), elapsed.stddev_of_mean(), elapsed.relative_stddev_percent(),
                         user_sys_of(*last), run_seconds);
  }
  return last->had_workload ? last->exit_status : 0;
}

}  // namespace sonde::pipeline
