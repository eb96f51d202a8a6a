// sonde ftrace stream: record's set-up options, events printed live as trace-cmd report lines.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <traceevent/event-parse.h>

#include "cli/event_options.hpp"
#include "cli/ftrace/ftrace_commands.hpp"
#include "cli/ftrace/ftrace_setup_options.hpp"
#include "ftrace/stream_run.hpp"
#include "tracedat/event_formatter.hpp"

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
    return report_error({"sonde ftrace stream: nothing to trace; give a tracer (-p) or events (-e)", Error::Kind::usage});

  capture::BlockedSignals signals;
  std::unique_ptr<tracedat::EventFormatter> formatter;
  std::string line;
  auto notice = [](const std::string& text) { fmt::print(stderr, "{}\n", text); };
  auto print_event = [&](ftrace::LocalTep& tep, const ftrace::LiveEvent& event) {
    if (!formatter) {
      tracedat::FormatOptions format_options;
      format_options.nanoseconds = nanoseconds;
      formatter = std::make_unique<tracedat::EventFormatter>(tep.handle(), format_options);
    }
    tep_record record{};
    record.ts = event.ts;
    record.cpu = event.cpu;
    record.data = event.data;
    record.size = event.size;
    record.missed_events = event.missed_events;
    tep.learn_task(tep_data_pid(tep.handle(), &record));
    line.clear();
    formatter->format(record, line);
    std::fwrite(line.data(), 1, line.size(), stdout);
  };
  auto status = ftrace::stream_ftrace(signals, request, *command, notice, print_event);
  std::fflush(stdout);
  if (!status) return report_error(status.error());
  return 0;
}

}  // namespace sonde::cli
