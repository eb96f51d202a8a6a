// sonde ftrace stream: record's set-up options, events printed live as trace-cmd report lines.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli/event_options.hpp"
#include "cli/ftrace/ftrace_commands.hpp"
#include "cli/ftrace/ftrace_setup_options.hpp"
#include "pipeline/ftrace_runs.hpp"

namespace sonde::cli {

int ftrace_stream(int argc, char** argv) {
  FtraceSetupOptions options;
  bool nanoseconds = false;
  CLI::App app{"Print events live from the per-CPU buffers (trace-cmd stream)", "sonde ftrace stream"};
  add_ftrace_setup_options(app, options, "stream");
  app.add_flag("-t", nanoseconds, "timestamps in nanoseconds");
  if (auto exit_code = parse_command_line(app, argc, argv, "ftrace stream")) return *exit_code;
  if (auto checked = finish_ftrace_setup_options(options); !checked) return report_error(checked.error());
  auto command = command_after_options(app, "ftrace stream");
  if (!command) return report_error(command.error());
  const auto& request = options.request;
  if (request.tracer.empty() && request.events.empty() && request.function_filters.empty() &&
      request.graph_functions.empty())
    return report_usage_error("ftrace stream", "nothing to trace; give a tracer (-p) or events (-e)");

  auto diagnostics = ftrace_diagnostics();
  auto status = pipeline::ftrace_stream_to({request, *command, nanoseconds}, stdout, diagnostics);
  if (!status) return report_error("ftrace", status.error());
  return 0;
}

}  // namespace sonde::cli
