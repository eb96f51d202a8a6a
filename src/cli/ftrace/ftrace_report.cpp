// sonde ftrace report: trace-cmd report's options, wired to the trace.dat reader and report.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/event_options.hpp"
#include "cli/ftrace/ftrace_commands.hpp"
#include "kernel/cpus.hpp"
#include "pipeline/blk_run.hpp"
#include "pipeline/html_report.hpp"
#include "tracedat/reader.hpp"
#include "tracedat/report.hpp"

namespace sonde::cli {

int ftrace_report(int argc, char** argv) {
  CLI::App app{"Print a trace.dat as trace-cmd report does", "sonde ftrace report"};
  std::string input = "trace.dat";
  std::vector<std::string> cpu_lists;
  tracedat::ReportOptions options;
  app.add_option("-i,--input", input, "trace.dat to read (default trace.dat)");
  app.add_option("-F,--filter", options.filters, "Show only events matching the filter (trace-cmd syntax)");
  app.add_option("--cpu", cpu_lists, "Show only these CPUs (list: 0,2-3)");
  app.add_flag("-t", options.nanoseconds, "Full nanosecond timestamps");
  app.add_flag("--stat", options.stat, "Show the recorded kernel buffer statistics");
  bool blkparse = false;
  app.add_flag("--blkparse", blkparse,
               "Print the blk tracer's records as blkparse does: a line per trace, each device's summary");
  std::string html;
  app.add_option(
      "--html", html,
      "Write a self-contained HTML page of the records instead: per-task and per-CPU timeline, counts");
  if (auto exit = parse_command_line(app, argc, argv, "ftrace report")) return *exit;
  auto rest = app.remaining();
  if (rest.size() > 1 || (rest.size() == 1 && !rest[0].empty() && rest[0][0] == '-'))
    return report_error(Error{
        fmt::format("sonde ftrace report: unexpected '{}'; see 'sonde ftrace report --help'", rest.front()),
        Error::Kind::usage});
  if (rest.size() == 1) input = rest[0];

  if (!html.empty()) {
    if (!options.filters.empty() || !cpu_lists.empty() || options.stat)
      return report_error(
          Error{"sonde ftrace report: --html shows every record; -F, --cpu and --stat go with the text",
                Error::Kind::usage});
    auto written = pipeline::write_trace_dat_html_report(input, html);
    if (!written) return report_error("ftrace report", written.error());
    fmt::print(stderr, "[ sonde ftrace report: wrote '{}' ({:.3f} MB, {} records): open it in a browser ]\n",
               html, static_cast<double>(written->bytes) / 1024.0 / 1024.0, written->samples);
    return 0;
  }
  if (blkparse) {
    if (!options.filters.empty() || !cpu_lists.empty() || options.stat || !html.empty())
      return report_error(
          Error{"sonde ftrace report: --blkparse prints every blk record; -F, --cpu, --stat and --html go "
                "without it",
                Error::Kind::usage});
    Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde ftrace report: ");
    if (auto printed = pipeline::blkparse_trace_dat(input, stdout, diagnostics); !printed)
      return report_error("ftrace report", printed.error());
    return 0;
  }
  for (const auto& list : cpu_lists) {
    auto cpus = kernel::parse_cpu_list(list);
    if (!cpus) return report_error(cpus.error().with_context("sonde ftrace report: --cpu"));
    options.cpus.insert(options.cpus.end(), cpus->begin(), cpus->end());
  }
  auto reader = tracedat::TraceDatReader::open(input);
  if (!reader) return report_error("ftrace report", reader.error());
  // stdout is written in large blocks by the report itself.
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  if (auto r = tracedat::write_report(**reader, options, stdout); !r)
    return report_error("ftrace report", r.error());
  return 0;
}

}  // namespace sonde::cli
