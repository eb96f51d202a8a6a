#pragma once
// From an input (folded stacks or perf script text) to the flame graph's tree, or to folded text
// for the differential. The one place that decides how each kind of input is read.
#include <string>

#include "analysis/flame/flame_input.hpp"
#include "analysis/flame/flame_tree.hpp"
#include "analysis/stacks/script_text.hpp"
#include "analysis/stacks/stack_collapse.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::analysis {

struct FlameBuildOptions {
  CollapseOptions collapse;  // for perf script text
  std::string event_filter;
  bool srcline = false;
  bool wall = false;                   // perf.data: on- and off-CPU time together (stacks/wall_time)
  symbols::SymbolizerOptions symbols;  // for perf.data input
};

struct FlameBuildStats {
  size_t invalid_lines = 0;  // folded lines without a count
};

// Folded stacks ("a;b;c 12", or a differential "a;b;c 10 12") into the tree.
FlameBuildStats add_folded_to_flame_tree(std::string_view folded, FlameTree& tree);

// Adds every stack of `input` (folded, perf script text or perf.data) to `tree`; fails when a
// perf.data file's replay stops. Notes (the event filter's, unrecognized lines) go to `diagnostics`.
Result<FlameBuildStats> add_to_flame_tree(const TextInput& input, const FlameBuildOptions& options,
                                          FlameTree& tree, Diagnostics& diagnostics);
// Folded text of `input`: as is when folded, collapsed when perf script text.
Result<std::string> folded_text_of(const TextInput& input, const FlameBuildOptions& options,
                                   Diagnostics& diagnostics);
// Adds difffolded output ("stack before after" lines) to `tree`: widths from the second
// profile, colours from the change.
FlameBuildStats add_diff_to_flame_tree(std::string_view diff_text, FlameTree& tree);

}  // namespace sonde::analysis
