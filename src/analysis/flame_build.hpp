#pragma once
// From an input (folded stacks or perf script text) to the flame graph's tree, or to folded text
// for the differential. The one place that decides how each kind of input is read.
#include <string>

#include "analysis/flame_input.hpp"
#include "analysis/flame_tree.hpp"
#include "analysis/script_text.hpp"
#include "analysis/stack_collapse.hpp"

namespace sonde::analysis {

struct FlameBuildOptions {
  CollapseOptions collapse;  // for perf script text
  std::string event_filter;
  bool srcline = false;
};

struct FlameBuildStats {
  size_t invalid_lines = 0;  // folded lines without a count
};

// Adds every stack of `input` (not perf.data: the caller handles that) to `tree`.
FlameBuildStats add_to_flame_tree(const TextInput& input, const FlameBuildOptions& options, FlameTree& tree,
                                  bool flamechart, const NoteSink& note);
// Folded text of `input`: as is when folded, collapsed when perf script text.
std::string folded_text_of(const TextInput& input, const FlameBuildOptions& options, const NoteSink& note);
// Adds difffolded output ("stack before after" lines) to `tree`: widths from the second
// profile, colours from the change.
FlameBuildStats add_diff_to_flame_tree(std::string_view diff_text, FlameTree& tree);

}  // namespace sonde::analysis
