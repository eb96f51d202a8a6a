// sonde trace: perf trace's options; pipeline/trace_run traces and prints.
#include <fmt/format.h>
#include <pwd.h>

#include <CLI/CLI.hpp>
#include <tuple>

#include "capture/tasks.hpp"
#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "cli/event_options.hpp"
#include "kernel/cpus.hpp"
#include "output/trace/summary_tables.hpp"
#include "pipeline/trace_run.hpp"

namespace sonde::cli {

namespace {

// -u takes a user name or a uid, as perf does.
Result<uid_t> parse_user(const std::string& text) {
  if (const passwd* entry = ::getpwnam(text.c_str())) return entry->pw_uid;
  char* end = nullptr;
  unsigned long uid = std::strtoul(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') return failf("unknown user '{}'; give a user name or a uid", text);
  return static_cast<uid_t>(uid);
}

}  // namespace

// sonde trace record: sonde record with the events perf trace record asks for, so that
// `sonde trace -i` and `perf trace -i` replay the file.
int trace_record(int argc, char** argv) {
  std::vector<std::string> words = {"record", "-R", "-m", "1024",
                                    "-c",     "1",  "-e", "raw_syscalls:sys_enter,raw_syscalls:sys_exit"};
  for (int i = 2; i < argc; ++i) words.emplace_back(argv[i]);
  return run_command(cmd_record, std::move(words));
}

int cmd_trace(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "record") return trace_record(argc, argv);
  pipeline::TraceRunOptions run;
  std::string pids, tids, cpus, filter_pids, user;
  bool no_inherit = false, all_cpus = false, no_syscalls = false, syscalls = false, comm = false,
       no_comm = false;
  double duration_ms = 0;
  uint64_t max_events = 0;
  CLI::App app{"Trace the system calls of a command, processes or the system (perf trace)", "sonde trace"};
  app.add_option("-e,--event,--expr", run.event_lists,
                 "syscalls (names, globs, a leading ! negates) to trace");
  app.add_option("-p,--pid", pids, "trace existing process ids (comma separated)");
  app.add_option("-t,--tid", tids, "trace existing thread ids (comma separated)");
  app.add_flag("-a,--all-cpus", all_cpus, "system-wide: every task");
  app.add_option("-C,--cpu", cpus, "only calls made on these CPUs (implies -a)");
  app.add_option("-u,--uid", user, "only this user's tasks (implies -a)");
  app.add_option("--filter-pids", filter_pids, "leave these process ids out (comma separated)");
  app.add_flag("--no-inherit", no_inherit, "do not follow the tasks they create");
  app.add_flag("-s,--summary,--summary-only", run.summary_only, "only the per-thread summary of syscalls");
  app.add_flag("-S,--with-summary", run.with_summary, "every call, then the summary");
  app.add_flag("-c", run.strace_summary, "only strace -c's table of calls, errors and time");
  app.add_flag("--errno-summary", run.errno_summary, "errno counts per syscall in the summary");
  app.add_option(
      "--sort", run.sort,
      "summary order: calls, errors, total, min, avg, max, stddev, name (with -c: strace -S names)");
  app.add_option("--duration", duration_ms, "only calls that took longer than this many ms");
  app.add_flag("--failure", run.failures_only, "only calls that failed");
  app.add_flag("-T,--time", run.absolute_time, "absolute timestamps, not relative to the first call");
  app.add_flag("--syscalls", syscalls, "trace syscalls (the default)");
  app.add_flag("--no-syscalls", no_syscalls, "trace no syscalls");
  app.add_flag("--comm", comm, "show the thread's comm beside its id");
  app.add_flag("--no-comm", no_comm, "show the thread's id only");
  app.add_option("--max-events", max_events, "stop after printing this many calls");
  app.add_option("-D,--delay", run.delay_ms, "wait this many ms after the command starts before tracing");
  app.add_option("-o,--output", run.output_path, "write the trace to this file instead of stderr");
  app.add_option("-i,--input", run.input_path,
                 "replay a recording of 'sonde trace record' or 'perf trace record'");
  app.add_option("-m,--mmap-pages", run.ring_pages, "ring buffer size in pages");
  std::string call_graph;
  app.add_option("-F,--pf", run.page_faults, "page faults too: all, maj (the default) or min")
      ->expected(0, 1)
      ->check(CLI::IsMember({"all", "maj", "min", ""}));
  app.add_option("--call-graph", call_graph, "each call's user stack: fp or dwarf");
  app.add_flag("--kernel-syscall-graph", run.kernel_callchains, "each call's kernel stack on its exit path");
  app.add_option("--max-stack", run.max_stack, "callchain entries printed per call (default 127)");
  if (auto exit_code = parse_command_line(app, argc, argv, "trace")) return *exit_code;
  auto command = command_after_options(app, "trace");
  if (!command) return report_error(command.error());
  run.command = *command;

  // -p, -t and --filter-pids: comma lists of ids.
  for (auto [text, ids, what] :
       {std::tuple{&pids, &run.pids, "process id"}, std::tuple{&tids, &run.tids, "thread id"},
        std::tuple{&filter_pids, &run.filter_pids, "process id"}}) {
    if (text->empty()) continue;
    auto parsed = capture::parse_task_ids(*text, what);
    if (!parsed) return report_error("trace", parsed.error());
    *ids = *parsed;
  }
  if (!cpus.empty()) {
    auto list = kernel::parse_cpu_list(cpus);
    if (!list) return report_error("trace", list.error());
    run.cpus = *list;
  }
  if (!user.empty()) {
    auto uid = parse_user(user);
    if (!uid) return report_error("trace", uid.error());
    run.uid = *uid;
  }
  if (duration_ms < 0)
    return report_usage_error("trace", "--duration needs a positive number of milliseconds");
  if (run.delay_ms < 0) return report_usage_error("trace", "-D needs a positive number of milliseconds");
  if (run.errno_summary && !run.summary_only && !run.with_summary)
    return report_usage_error("trace", "--errno-summary goes with -s or -S");
  if (run.strace_summary && (run.summary_only || run.with_summary))
    return report_usage_error("trace", "-c is strace's summary; use it instead of -s/-S");
  if (!run.sort.empty()) {
    auto known =
        run.strace_summary ? output::check_strace_sort(run.sort) : output::check_perf_summary_sort(run.sort);
    if (!known) return report_usage_error("trace", known.error().message);
  }
  if (app.count("--pf") > 0 && run.page_faults.empty()) run.page_faults = "maj";
  if (!call_graph.empty()) {
    if (call_graph != "fp" && call_graph != "dwarf" && !call_graph.starts_with("dwarf,"))
      return report_usage_error("trace", "--call-graph takes fp or dwarf");
    run.user_callchains = true;
    run.dwarf_callchains = call_graph.starts_with("dwarf");
  }
  run.min_duration_ms = duration_ms;
  run.inherit = !no_inherit;
  run.trace_syscalls = !no_syscalls || syscalls;
  if (comm) run.show_comm = true;
  if (no_comm) run.show_comm = false;
  if (max_events > 0) run.max_events = max_events;
  bool has_target = !run.pids.empty() || !run.tids.empty() || !run.cpus.empty() || run.uid;
  // As perf: with neither a command nor a target, trace the whole system until Ctrl-C.
  run.system_wide = all_cpus || (run.command.empty() && !has_target);
  if (!run.input_path.empty() && !run.command.empty())
    return report_usage_error("trace", "-i replays a file; it runs no command");
  if (!run.command.empty() && (!run.pids.empty() || !run.tids.empty()))
    return report_usage_error("trace", "give either a command or -p/-t, not both");

  Diagnostics diagnostics([](const Diagnostics::Message& message) {
    fmt::print(stderr, "{}{}\n", message.kind == Diagnostics::Kind::warning ? "sonde trace: warning: " : "",
               message.text);
  });
  auto status = pipeline::run_trace(run, diagnostics);
  if (!status) return report_error("trace", status.error());
  return *status;
}

}  // namespace sonde::cli
