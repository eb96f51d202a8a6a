#include "cli/ftrace/ftrace_setup_options.hpp"

#include <fmt/format.h>

#include "capture/tasks.hpp"

namespace sonde::cli {

void add_ftrace_setup_options(CLI::App& app, FtraceSetupOptions& options, const std::string& command_name) {
  auto& request = options.request;
  app.add_option("-p,--plugin", request.tracer,
                 "tracer: function, function_graph, blk, nop ('sonde ftrace list -t')");
  app.add_option("-l,--func", request.function_filters,
                 "trace only functions matching this glob (set_ftrace_filter)");
  app.add_option("-n,--notrace", request.notrace_filters, "do not trace functions matching this glob");
  app.add_option("-g,--graph", request.graph_functions, "function_graph from this function down");
  app.add_option_function<std::string>(
         "-e,--event",
         [&options](const std::string& spec) {
           options.request.events.push_back({spec, {}, {}});
         },
         "events: subsys, subsys:event, globs ('sonde ftrace list -e')")
      ->trigger_on_parse();
  auto attach = [&options, command_name](const char* what, bool filter) {
    return [&options, command_name, what, filter](const std::string& text) {
      if (options.request.events.empty()) {
        if (!options.error)
          options.error =
              Error{fmt::format("sonde ftrace {}: {} applies to the -e before it; put it after an -e",
                                command_name, what),
                    Error::Kind::usage};
        return;
      }
      auto& last = options.request.events.back();
      (filter ? last.filters : last.triggers).push_back(text);
    };
  };
  app.add_option_function<std::string>("-f,--filter", attach("-f", true),
                                       "filter for the preceding -e ('common_pid == 1')")
      ->trigger_on_parse();
  app.add_option_function<std::string>(
         "-R,--trigger", attach("-R", false),
         "trigger for the preceding -e ('traceoff:1', 'stacktrace if prev_pid == 0')")
      ->trigger_on_parse();
  app.add_option("-P,--pid", options.pid_lists, "trace only these process ids (comma separated, repeatable)");
  app.add_flag("-c,--children", request.follow_children, "with -P, follow the processes' children too");
  app.add_option("-b,--buffer-size", request.buffer_kb, "per-CPU buffer size in KB");
  app.add_option("-C,--clock", request.clock, "trace clock (local, global, mono, ...)");
  app.add_option("-M,--cpumask", request.cpumask, "trace only the CPUs of this hex mask");
  app.add_flag("-T,--stacktrace", request.stacktrace, "a kernel stack trace after every event");
  app.add_option("--device", request.block_devices, "block device for -p blk (loop0, vda, /dev/vda1)");
}

Result<void> finish_ftrace_setup_options(FtraceSetupOptions& options) {
  if (options.error) return tl::unexpected(*options.error);
  for (const auto& list : options.pid_lists) {
    auto ids = capture::parse_task_ids(list, "process id");
    if (!ids) return tl::unexpected(ids.error().with_context("sonde ftrace"));
    options.request.pids.insert(options.request.pids.end(), ids->begin(), ids->end());
  }
  if (options.request.follow_children && options.request.pids.empty())
    return fail_usage("sonde ftrace: -c follows the children of the -P processes; add -P PID");
  return {};
}

Diagnostics ftrace_diagnostics() {
  return Diagnostics(
      [](const Diagnostics::Message& message) { fmt::print(stderr, "sonde ftrace: {}\n", message.text); });
}

}  // namespace sonde::cli
