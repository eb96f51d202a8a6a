#include "pipeline/flamegraph_run.hpp"

#include "analysis/stacks/folded.hpp"
#include "output/svg/svg_file.hpp"

namespace sonde::pipeline {

namespace {

Result<analysis::TextInput> open_text(const std::string& path) {
  auto input = analysis::TextInput::open(path);
  if (!input) return input;
  if (input->kind() == analysis::InputKind::perf_data && (path.empty() || path == "-"))
    return fail("perf.data on standard input: give the file's name instead");
  return input;
}

}  // namespace

Result<analysis::FlameTree> build_flame_tree(const FlameTreeRequest& request, Diagnostics& diagnostics) {
  analysis::FlameTree tree(request.tree);
  analysis::FlameBuildStats stats;
  if (request.diff) {
    std::string folded[2];
    const std::string* paths[2] = {&request.diff->first, &request.diff->second};
    for (int i = 0; i < 2; ++i) {
      auto input = open_text(*paths[i]);
      if (!input) return tl::unexpected(input.error());
      auto text = analysis::folded_text_of(*input, request.build, diagnostics);
      if (!text) return tl::unexpected(text.error());
      folded[i] = std::move(*text);
    }
    std::string diffed = analysis::diff_folded(
        folded[0], folded[1], {.normalize = request.normalize, .strip_hex = request.strip_hex});
    stats = analysis::add_diff_to_flame_tree(diffed, tree);
  } else {
    auto input = open_text(request.input.empty() ? "-" : request.input);
    if (!input) return tl::unexpected(input.error());
    auto added = analysis::add_to_flame_tree(*input, request.build, tree, diagnostics);
    if (!added) return tl::unexpected(added.error());
    stats = *added;
  }
  if (stats.invalid_lines) diagnostics.warningf("ignored {} lines with invalid format", stats.invalid_lines);
  if (tree.cut_stacks())
    diagnostics.warningf(
        "{} stacks deeper than {} frames were cut there (the deepest has {}): their deeper frames are drawn "
        "as one "
        "\"[N more frames]\" frame",
        tree.cut_stacks(), analysis::FlameTree::kMaxDepth, tree.deepest_stack());
  return tree;
}

Result<void> write_flamegraph(analysis::FlameTree& tree, const output::FlameGraphStyle& style, bool html,
                              const std::string& output_path) {
  tree.finish();
  std::string document =
      html ? output::render_flamegraph_html(tree, style) : output::render_flamegraph_svg(tree, style);
  return output::write_document(output_path, document);
}

}  // namespace sonde::pipeline
