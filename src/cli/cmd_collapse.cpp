// sonde collapse [options] [FILE]: folded stacks ("comm;caller;...;leaf count") from a perf.data
// file, or from perf script text on stdin or in FILE, with stackcollapse-perf.pl's options and
// byte-identical output.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cli/collapse_options.hpp"
#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "output/svg/svg_file.hpp"
#include "pipeline/collapse_run.hpp"

namespace sonde::cli {

int cmd_collapse(int argc, char** argv) {
  CLI::App app{"Fold perf script stacks into one line per stack, as stackcollapse-perf.pl does",
               "sonde collapse"};
  pipeline::CollapseRequest request;
  bool annotate_all = false;
  std::string output_path;
  app.add_option("file,-i,--input", request.input, "perf script text (default: stdin)");
  app.add_option("-o,--output", output_path, "Write the folded stacks here (default: stdout)");
  add_collapse_options(app, request.options, annotate_all);
  app.add_flag("--srcline", request.srcline,
               "The input is perf script -F+srcline: add source lines to names");
  app.add_option("--event-filter", request.event_filter,
                 "Fold only samples of this event (default: the first seen)");
  app.add_flag("--wall", request.wall,
               "A 'record --off-cpu' file's on- and off-CPU time together, each off-CPU stack topped by its "
               "state ([S sleeping], [D uninterruptible], [R preempted]); counts in ns");
  app.add_flag("--wakers", request.wakers,
               "Wake-up chains of a 'record --off-cpu --wakers' file: each blocked stack, '--', then the "
               "stack that woke it, leaf first (offwaketime's folded output); counts in ns");
  if (auto exit_code = parse_command_line(app, argc, argv, "collapse", AfterOptions::nothing))
    return *exit_code;
  apply_annotate_all(request.options, annotate_all);

  Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde collapse: ");
  auto folded = pipeline::collapse_stacks(request, diagnostics);
  if (!folded) return report_error("collapse", folded.error());
  if (auto written = output::write_document(output_path, *folded); !written)
    return report_error("collapse", written.error());
  return 0;
}

}  // namespace sonde::cli
