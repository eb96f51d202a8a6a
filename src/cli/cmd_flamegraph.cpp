// sonde flamegraph [options] [FILE] [-o out.svg|out.html]: an interactive flame graph from folded
// stacks or perf script text (told apart by their content), with flamegraph.pl's options;
// --diff BEFORE AFTER draws difffolded.pl + flamegraph.pl's differential graph.
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/flame/flame_build.hpp"
#include "analysis/stacks/folded.hpp"
#include "cli/command.hpp"
#include "output/flame/flamegraph_svg.hpp"
#include "output/svg/svg_file.hpp"

namespace sonde::cli {

namespace {

int fail_with(std::string_view message, int status = 1) {
  fmt::print(stderr, "sonde flamegraph: {}\n", message);
  return status;
}

// --minwidth: pixels, or a percentage of the total with a trailing '%'.
bool parse_minwidth(const std::string& text, output::FlameGraphStyle& style) {
  std::string_view number = text;
  style.minwidth_percent = number.ends_with('%');
  if (style.minwidth_percent) number.remove_suffix(1);
  if (number.empty() || number.find_first_not_of("0123456789.") != std::string_view::npos) return false;
  style.minwidth = std::strtod(std::string(number).c_str(), nullptr);
  return true;
}

Result<analysis::TextInput> open_text(const std::string& path) {
  auto input = analysis::TextInput::open(path);
  if (!input) return input;
  if (input->kind() == analysis::InputKind::perf_data && (path.empty() || path == "-"))
    return fail("perf.data on standard input: give the file's name instead");
  return input;
}

}  // namespace

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
  app.add_option("-o,--output", output_path, "Write here (default: stdout); a .html name writes an HTML page");
  app.add_option("--format", format, "svg or html (default: from the -o name, else svg)");
  app.add_option("--diff", diff, "Differential graph of two profiles: BEFORE AFTER (red grew, blue shrank)")
      ->expected(2);
  app.add_flag("-n,--normalize", normalize, "With --diff: scale BEFORE's counts to AFTER's total (difffolded -n)");
  app.add_flag("--strip-hex", strip_hex, "With --diff: ignore hex addresses in names (difffolded -s)");
  app.add_flag("--negate", style.negate, "Swap the differential hues (blue grew, red shrank)");
  app.add_option("--title", style.title, "Title text");
  app.add_option("--subtitle", style.subtitle, "Second-level title");
  app.add_option("--width", style.width, "Image width in pixels (default 1200)");
  app.add_option("--height", style.frame_height, "Height of each frame (default 16)");
  app.add_option("--minwidth", minwidth, "Omit frames narrower than this: pixels, or N% of the total (default 0.1)");
  app.add_option("--fonttype", style.fonttype, "Font (default Verdana)");
  app.add_option("--fontsize", style.fontsize, "Font size (default 12)");
  app.add_option("--fontwidth", style.fontwidth, "Average character width relative to the font size (default 0.59)");
  app.add_option("--countname", style.countname, "What the counts are (default samples)");
  app.add_option("--nametype", style.nametype, "What the names are (default Function:)");
  app.add_option("--colors", style.colors,
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
  app.add_flag("--pid", build.collapse.include_pid, "perf script input: include the PID with process names");
  app.add_flag("--tid", build.collapse.include_tid, "perf script input: include PID and TID with process names");
  app.add_flag("--kernel", build.collapse.annotate_kernel, "perf script input: annotate kernel frames");
  app.add_flag("--jit", build.collapse.annotate_jit, "perf script input: annotate JIT frames");
  app.add_flag("--all", annotate_all, "perf script input: all annotations (--kernel --jit)");
  app.add_flag("--addrs", build.collapse.include_addrs, "perf script input: raw addresses for unknown frames");
  app.add_flag("--inline", build.collapse.show_inline, "perf script input: expand inline frames");
  app.add_flag("--context", build.collapse.show_context, "perf script input: with --inline, add file:line");
  app.add_option("--event-filter", build.event_filter, "perf script input: only this event");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int status = app.exit(error);
    return status == 0 ? 0 : 129;
  }
  if (annotate_all) build.collapse.annotate_kernel = build.collapse.annotate_jit = true;
  if (!parse_minwidth(minwidth, style)) return fail_with(fmt::format("--minwidth '{}' is not a number of pixels or N%", minwidth), 129);
  if (auto checked = output::check_style(style); !checked) return fail_with(checked.error().message, 129);
  bool html = format == "html" || (format.empty() && output_path.ends_with(".html"));
  if (!format.empty() && format != "svg" && format != "html") return fail_with("--format takes svg or html", 129);
  if (!diff.empty() && !inputs.empty()) return fail_with("give the two profiles to --diff and no other input", 129);
  if (inputs.size() > 1) return fail_with("one input at a time (two with --diff BEFORE AFTER)", 129);

  Diagnostics diagnostics = Diagnostics::printing_to(stderr);
  analysis::FlameTree tree({.flamechart = style.flamechart, .reverse = reverse, .chain = style.colors == "chain"});
  analysis::FlameBuildStats stats;
  if (!diff.empty()) {
    std::string folded[2];
    for (int i = 0; i < 2; ++i) {
      auto input = open_text(diff[i]);
      if (!input) return fail_with(input.error().message);
      auto text = analysis::folded_text_of(*input, build, diagnostics);
      if (!text) return fail_with(text.error().message);
      folded[i] = std::move(*text);
    }
    std::string diffed = analysis::diff_folded(folded[0], folded[1], {.normalize = normalize, .strip_hex = strip_hex});
    stats = analysis::add_diff_to_flame_tree(diffed, tree);
  } else {
    auto input = open_text(inputs.empty() ? "-" : inputs[0]);
    if (!input) return fail_with(input.error().message);
    auto added = analysis::add_to_flame_tree(*input, build, tree, diagnostics);
    if (!added) return fail_with(added.error().message);
    stats = *added;
  }
  if (stats.invalid_lines)
    fmt::print(stderr, "sonde flamegraph: ignored {} lines with invalid format\n", stats.invalid_lines);
  if (tree.total() <= 0)
    return fail_with("no stack counts found: give folded stacks (\"a;b;c 12\") or perf script text with callchains (perf record -g)", 2);
  tree.finish();

  std::string document = html ? output::render_flamegraph_html(tree, style) : output::render_flamegraph_svg(tree, style);
  if (auto written = output::write_document(output_path, document); !written) return fail_with(written.error().message);
  return 0;
}

}  // namespace sonde::cli
