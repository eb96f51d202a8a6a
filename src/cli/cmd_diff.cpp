// sonde diff: perf diff's text comparison of two or more perf.data files, wired from the
// report's histograms through the pairing in analysis/profile_diff to the diff printer.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/diff/profile_diff.hpp"
#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "output/diff/diff_printer.hpp"

namespace sonde::cli {

int cmd_diff(int argc, char** argv) {
  analysis::DiffRequest request;
  std::string compute = "delta-abs", sort = "dso,sym", percentage = "relative";
  [[maybe_unused]] bool stdio = false;
  CLI::App app{"Compare two or more profiles (perf diff)", "sonde diff"};
  app.add_option("files", request.files,
                 "baseline and compared perf.data files (default perf.data.old perf.data)");
  app.add_option("-c,--compute", compute, "delta, delta-abs (default), ratio or wdiff:w1,w2");
  app.add_option("-s,--sort", sort, "sort by keys: dso, sym (default), comm, pid, srcline, parent, cpu");
  app.add_option("--percentage", percentage, "relative or absolute (the same without filters)");
  app.add_flag("--stdio", stdio, "text output (the only interface sonde has)");
  app.add_option("--symfs", request.symfs, "look for files with symbols relative to this directory");
  app.add_option("--kallsyms", request.kallsyms, "kallsyms pathname");
  app.add_flag("--demangle,!--no-demangle", request.demangle,
               "demangle C++ and Rust symbol names (default on)");
  if (auto exit_code = parse_command_line(app, argc, argv, "diff", AfterOptions::nothing)) return *exit_code;

  if (request.files.empty()) request.files = {"perf.data.old", "perf.data"};
  if (request.files.size() == 1)
    return report_usage_error(
        "diff", "give two or more perf.data files: the baseline first (or none for perf.data.old perf.data)");
  if (percentage != "relative" && percentage != "absolute")
    return report_usage_error("diff", fmt::format("--percentage '{}': use relative or absolute", percentage));
  if (auto parsed = analysis::parse_compute(compute, request); !parsed)
    return report_error("diff", parsed.error());
  auto keys = analysis::parse_sort_keys(sort);
  if (!keys) return report_error("diff", keys.error());
  request.keys = *keys;

  Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde diff: ");
  auto diffs = analysis::compute_diff(request, diagnostics);
  if (!diffs) return report_error("diff", diffs.error());
  output::print_diff(stdout, *diffs, request);
  std::fflush(stdout);
  return 0;
}

}  // namespace sonde::cli
