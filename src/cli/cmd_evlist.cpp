// sonde evlist [-i perf.data] [-F] [-v] [-g] [--trace-fields]: the events a recording holds, as
// perf evlist lists them.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "pipeline/evlist_run.hpp"

namespace sonde::cli {

int cmd_evlist(int argc, char** argv) {
  CLI::App app{"List the events in a perf.data file", "sonde evlist"};
  std::string input = "perf.data";
  output::EvlistOptions options;
  bool force = false;
  app.add_option("-i,--input", input, "input file name");
  app.add_flag("-f,--force", force, "accepted for perf compatibility: sonde reads files whoever owns them");
  app.add_flag("-F,--freq", options.freq, "show the sample frequency");
  app.add_flag("-g,--group", options.group, "show event group information");
  app.add_flag("-v,--verbose", options.verbose, "show all event attr details");
  app.add_flag("--trace-fields", options.trace_fields, "show tracepoint fields");
  if (auto exit_code = parse_command_line(app, argc, argv, "evlist", AfterOptions::nothing))
    return *exit_code;
  if (options.group && (options.freq || options.verbose || options.trace_fields))
    return report_usage_error("evlist", "--group option is not compatible with other options");
  if (auto printed = pipeline::print_evlist(stdout, input, options); !printed)
    return report_error("evlist", printed.error());
  return 0;
}

}  // namespace sonde::cli
