// sonde collapse [options] [FILE]: folded stacks ("comm;caller;...;leaf count") from a perf.data
// file, or from perf script text on stdin or in FILE, with stackcollapse-perf.pl's options and
// byte-identical output.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/flame/flame_input.hpp"
#include "analysis/stacks/script_text.hpp"
#include "analysis/stacks/session_stacks.hpp"
#include "analysis/stacks/stack_collapse.hpp"
#include "analysis/stacks/stack_collapse_inline.hpp"
#include "cli/command.hpp"
#include "output/svg/svg_file.hpp"

namespace sonde::cli {

int cmd_collapse(int argc, char** argv) {
  CLI::App app{"Fold perf script stacks into one line per stack, as stackcollapse-perf.pl does",
               "sonde collapse"};
  analysis::CollapseOptions options;
  bool annotate_all = false, srcline = false;
  std::string event_filter, input_path, output_path;
  app.add_option("file,-i,--input", input_path, "perf script text (default: stdin)");
  app.add_option("-o,--output", output_path, "Write the folded stacks here (default: stdout)");
  app.add_flag("--pid", options.include_pid, "Include the PID with process names");
  app.add_flag("--tid", options.include_tid, "Include the PID and TID with process names");
  app.add_flag("--inline", options.show_inline, "Expand inline frames from the binaries' DWARF");
  app.add_flag("--context", options.show_context, "With --inline, add file:line to each name");
  app.add_flag("--srcline", srcline, "The input is perf script -F+srcline: add source lines to names");
  app.add_flag("--kernel", options.annotate_kernel, "Annotate kernel functions with _[k]");
  app.add_flag("--jit", options.annotate_jit, "Annotate JIT functions with _[j]");
  app.add_flag("--all", annotate_all, "All annotations (--kernel --jit)");
  app.add_flag("--addrs", options.include_addrs, "Include raw addresses where symbols cannot be found");
  app.add_option("--event-filter", event_filter, "Fold only samples of this event (default: the first seen)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int status = app.exit(error);
    return status == 0 ? 0 : 129;
  }
  if (annotate_all) options.annotate_kernel = options.annotate_jit = true;

  auto input = analysis::TextInput::open(input_path);
  if (!input) {
    fmt::print(stderr, "sonde collapse: {}\n", input.error().message);
    return 1;
  }
  analysis::DwarfInlineExpander expander;
  analysis::StackCollapser collapser(options, &expander);
  analysis::EventFilter filter(event_filter);
  auto add = [&](const analysis::StackSample& sample) { collapser.add(sample); };
  Diagnostics diagnostics = Diagnostics::printing_to(stderr);
  if (input->kind() == analysis::InputKind::perf_data) {
    if (input_path.empty() || input_path == "-") {
      fmt::print(stderr, "sonde collapse: perf.data on standard input: give the file's name instead\n");
      return 1;
    }
    // Straight from the session: frames named as perf script would print them.
    if (auto replayed = analysis::for_each_session_stack(input->name(), {}, filter, add, diagnostics);
        !replayed) {
      fmt::print(stderr, "sonde collapse: {}\n", replayed.error().message);
      return 1;
    }
  } else {
    analysis::parse_script_text(input->text(), {.srcline = srcline}, filter, add, diagnostics);
  }
  std::string folded = collapser.folded_text();
  if (auto written = output::write_document(output_path, folded); !written) {
    fmt::print(stderr, "sonde collapse: {}\n", written.error().message);
    return 1;
  }
  return 0;
}

}  // namespace sonde::cli
