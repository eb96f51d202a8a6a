#pragma once
// sonde flamegraph: the flame tree of folded stacks or perf script text (told apart by their
// content), or of two profiles' difference (--diff), then drawn as SVG or HTML.
#include <optional>
#include <string>

#include "analysis/flame/flame_build.hpp"
#include "analysis/flame/flame_tree.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "output/flame/flamegraph_svg.hpp"

namespace sonde::pipeline {

struct FlameTreeRequest {
  std::string input;                                        // empty or "-": stdin
  std::optional<std::pair<std::string, std::string>> diff;  // --diff BEFORE AFTER instead of `input`
  bool normalize = false, strip_hex = false;                // with diff: difffolded's -n and -s
  analysis::FlameTreeOptions tree;
  analysis::FlameBuildOptions build;  // perf script input: collapse's options
};

// The tree, not yet finished; an empty one (total() <= 0) when the input had no stack counts.
// Notes from reading perf script text, and the count of invalid lines, go to `diagnostics`.
Result<analysis::FlameTree> build_flame_tree(const FlameTreeRequest& request, Diagnostics& diagnostics);

// Finishes the tree and writes it to `output_path` (stdout when empty), as HTML or SVG.
Result<void> write_flamegraph(analysis::FlameTree& tree, const output::FlameGraphStyle& style, bool html,
                              const std::string& output_path);

}  // namespace sonde::pipeline
