// sonde ftrace record: trace-cmd record's options, wired from tracefs set-up and per-CPU capture
// (ftrace/) to the trace.dat writer (tracedat/).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/event_options.hpp"
#include "cli/ftrace/ftrace_commands.hpp"
#include "cli/ftrace/ftrace_setup_options.hpp"
#include "ftrace/record_run.hpp"
#include "tracedat/writer.hpp"

namespace sonde::cli {

namespace {

tracedat::TraceDatContents trace_dat_contents(ftrace::RecordOutcome& outcome) {
  auto& metadata = outcome.metadata;
  tracedat::TraceDatContents contents;
  contents.page_size = metadata.page_size;
  contents.header_page = std::move(metadata.header_page);
  contents.header_event = std::move(metadata.header_event);
  contents.ftrace_formats = std::move(metadata.ftrace_formats);
  contents.event_formats = std::move(metadata.event_formats);
  contents.kallsyms = std::move(metadata.kallsyms);
  contents.printk_formats = std::move(metadata.printk_formats);
  contents.saved_cmdlines = std::move(metadata.saved_cmdlines);
  contents.trace_clock = std::move(metadata.trace_clock);
  contents.cpu_stats = std::move(metadata.cpu_stats);
  contents.uname = std::move(metadata.uname);
  contents.nr_cpus = metadata.nr_cpus;
  for (const auto& cpu : outcome.cpus) contents.cpus.push_back({cpu.capture.cpu, cpu.capture.path});
  return contents;
}

}  // namespace

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
    return report_error({"sonde ftrace record: nothing to trace; give a tracer (-p) or events (-e)", Error::Kind::usage});

  // Held until the trace.dat is complete, so a second Ctrl-C cannot leave half a file.
  capture::BlockedSignals signals;
  auto notice = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  auto outcome = ftrace::record_ftrace(signals, request, *command, output + ".", notice);
  if (!outcome) return report_error(outcome.error());
  auto contents = trace_dat_contents(*outcome);
  auto written = tracedat::write_trace_dat(output, contents);
  for (const auto& cpu : outcome->cpus) ::unlink(cpu.capture.path.c_str());
  if (!written) return report_error(written.error().with_context("sonde ftrace record"));
  fmt::print(stderr, "{}\n", ftrace::record_summary(*outcome));
  return 0;
}

}  // namespace sonde::cli
