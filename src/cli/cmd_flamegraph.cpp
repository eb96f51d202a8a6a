// sonde flamegraph [options] [FILE] [-o out.svg|out.html]: an interactive flame graph from folded
// stacks or perf script text (told apart by their content), with flamegraph.pl's options;
// --diff BEFORE AFTER draws difffolded.pl + flamegraph.pl's differential graph.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/collapse_options.hpp"
#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "output/flame/flamegraph_svg.hpp"
#include "pipeline/flamegraph_run.hpp"

namespace sonde::cli {

int cmd_flamegraph(int argc, char** argv) {
  CLI::App app{"Draw an interactive flame graph (SVG or HTML) from folded stacks or perf script text",
               "sonde flamegraph"};
  output::FlameGraphStyle style;
  analysis::FlameBuildOptions build;
  std::vector<std::string> inputs;
  std::string output_path, minwidth = "0.1", format;
  std::vector<std::string> diff;
  bool annotate_all = false, reverse = false, normalize = false, strip_hex = false;
  app.add_option("file", inputs, "Folded stacks or perf script text (default: stdin)");
  app.add_option("-o,--output", output_path,
                 "Write here (default: stdout); a .html name writes an HTML page");
  app.add_option("--format", format, "svg or html (default: from the -o name, else svg)");
  app.add_option("--diff", diff, "Differential graph of two profiles: BEFORE AFTER (red grew, blue shrank)")
      ->expected(2);
  app.add_flag("-n,--normalize", normalize,
               "With --diff: scale BEFORE's counts to AFTER's total (difffolded -n)");
  app.add_flag("--strip-hex", strip_hex, "With --diff: ignore hex addresses in names (difffolded -s)");
  app.add_flag("--negate", style.negate, "Swap the differential hues (blue grew, red shrank)");
  app.add_option("--title", style.title, "Title text");
  app.add_option("--subtitle", style.subtitle, "Second-level title");
  app.add_option("--width", style.width, "Image width in pixels (default 1200)");
  app.add_option("--height", style.frame_height, "Height of each frame (default 16)");
  app.add_option("--minwidth", minwidth,
                 "Omit frames narrower than this: pixels, or N% of the total (default 0.1)");
  app.add_option("--fonttype", style.fonttype, "Font (default Verdana)");
  app.add_option("--fontsize", style.fontsize, "Font size (default 12)");
  app.add_option("--fontwidth", style.fontwidth,
                 "Average character width relative to the font size (default 0.59)");
  app.add_option("--countname", style.countname, "What the counts are (default samples)");
  app.add_option("--nametype", style.nametype, "What the names are (default Function:)");
  app.add_option(
      "--colors", style.colors,
      "Palette: hot (default), mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, "
      "purple, orange");
  app.add_option("--bgcolors", style.bgcolors, "Background: yellow, blue, green, grey or #rrggbb");
  app.add_flag("--hash", style.hash, "Colours keyed by a hash of the function name");
  app.add_flag("--reverse", reverse, "Stack-reversed graph (merged at the leaves)");
  app.add_flag("--inverted", style.inverted, "Icicle graph (root at the top)");
  app.add_flag("--flamechart", style.flamechart, "Flame chart: stacks in input (time) order, not merged");
  app.add_option("--notes", style.notes, "Notes to embed in the SVG");
  app.add_option("--factor", style.factor, "Multiply the counts by this in the labels");
  // For perf script text input: sonde collapse's options.
  add_collapse_options(app, build.collapse, annotate_all, "perf script input: ");
  app.add_option("--event-filter", build.event_filter, "perf script input: only this event");
  app.add_flag(
      "--wall", build.wall,
      "A 'record --off-cpu' file's on- and off-CPU time together, off-CPU stacks topped by their state");
  if (auto exit_code = parse_command_line(app, argc, argv, "flamegraph", AfterOptions::nothing))
    return *exit_code;
  apply_annotate_all(build.collapse, annotate_all);
  // Off-CPU samples (and --wall's) count nanoseconds: labelled in ms unless the user says otherwise.
  if (build.event_filter == "offcpu-time" || build.wall) {
    if (app.count("--countname") == 0) style.countname = "ms";
    if (app.count("--factor") == 0) style.factor = 1e-6;
  }
  auto usage_error = [](std::string message) { return report_usage_error("flamegraph", std::move(message)); };
  if (auto set = output::set_minwidth(style, minwidth); !set) return usage_error(set.error().message);
  if (auto checked = output::check_style(style); !checked) return usage_error(checked.error().message);
  if (!format.empty() && format != "svg" && format != "html")
    return usage_error("--format takes svg or html");
  if (!diff.empty() && !inputs.empty())
    return usage_error("give the two profiles to --diff and no other input");
  if (inputs.size() > 1) return usage_error("one input at a time (two with --diff BEFORE AFTER)");
  bool html = format == "html" || (format.empty() && output_path.ends_with(".html"));

  pipeline::FlameTreeRequest request;
  if (!inputs.empty()) request.input = inputs[0];
  if (!diff.empty()) request.diff = {diff[0], diff[1]};
  request.normalize = normalize;
  request.strip_hex = strip_hex;
  request.tree = {.flamechart = style.flamechart, .reverse = reverse, .chain = style.colors == "chain"};
  request.build = build;
  Diagnostics diagnostics([](const Diagnostics::Message& message) {
    fmt::print(stderr, "{}{}\n", message.kind == Diagnostics::Kind::warning ? "sonde flamegraph: " : "",
               message.text);
  });
  auto tree = pipeline::build_flame_tree(request, diagnostics);
  if (!tree) return report_error("flamegraph", tree.error());
  if (tree->total() <= 0) {
    report_error("flamegraph",
                 Error{"no stack counts found: give folded stacks (\"a;b;c 12\") or perf script text "
                       "with callchains (perf record -g)"});
    return 2;
  }
  if (auto written = pipeline::write_flamegraph(*tree, style, html, output_path); !written)
    return report_error("flamegraph", written.error());
  return 0;
}

}  // namespace sonde::cli
