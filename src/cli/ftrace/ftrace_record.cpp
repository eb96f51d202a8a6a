// sonde ftrace record: trace-cmd record's options; pipeline/ftrace_runs traces into the trace.dat.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli/event_options.hpp"
#include "cli/ftrace/ftrace_commands.hpp"
#include "cli/ftrace/ftrace_setup_options.hpp"
#include "pipeline/ftrace_runs.hpp"

namespace sonde::cli {

int ftrace_record(int argc, char** argv) {
  FtraceSetupOptions options;
  std::string output = "trace.dat";
  CLI::App app{"Trace into a trace.dat (trace-cmd record)", "sonde ftrace record"};
  add_ftrace_setup_options(app, options, "record");
  app.add_option("-o,--output", output, "the trace.dat to write");
  if (auto exit_code = parse_command_line(app, argc, argv, "ftrace record")) return *exit_code;
  if (auto checked = finish_ftrace_setup_options(options); !checked) return report_error(checked.error());
  auto command = command_after_options(app, "ftrace record");
  if (!command) return report_error(command.error());
  const auto& request = options.request;
  if (request.tracer.empty() && request.events.empty() && request.function_filters.empty() &&
      request.notrace_filters.empty() && request.graph_functions.empty())
    return report_usage_error("ftrace record", "nothing to trace; give a tracer (-p) or events (-e)");

  auto diagnostics = ftrace_diagnostics();
  auto outcome = pipeline::ftrace_record_to_trace_dat({request, *command, output}, diagnostics);
  if (!outcome) return report_error("ftrace", outcome.error());
  fmt::print(stderr, "sonde ftrace record: {}\n", ftrace::record_summary(*outcome));
  if (outcome->out_of_space)
    return report_error("ftrace",
                        Error{fmt::format("the disk holding {} filled up (ENOSPC), so tracing stopped there; "
                                          "what was captured is kept in {} (sonde ftrace report reads it)",
                                          output, output)});
  return 0;
}

}  // namespace sonde::cli
