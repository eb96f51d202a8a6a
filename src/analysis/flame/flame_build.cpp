#include "analysis/flame/flame_build.hpp"

#include "analysis/stacks/folded.hpp"
#include "analysis/stacks/session_stacks.hpp"
#include "analysis/stacks/stack_collapse_inline.hpp"
#include "analysis/stacks/wall_time.hpp"

namespace sonde::analysis {

namespace {

// Calls `each(sample)` for every stack sample of perf script text or a perf.data file; fails
// when a perf.data file's replay stops.
template <typename Each>
Result<void> for_each_sample(const TextInput& input, const FlameBuildOptions& options,
                             Diagnostics& diagnostics, Each&& each) {
  if (options.wall) {
    if (input.kind() != InputKind::perf_data)
      return fail("--wall reads a perf.data file recorded with 'sonde record --off-cpu'");
    return for_each_wall_time_stack(input.name(), options.symbols, each, diagnostics);
  }
  EventFilter filter(options.event_filter);
  if (input.kind() == InputKind::perf_data) {
    // A perf.data file: its samples straight from the session, named as perf script names them.
    return for_each_session_stack(input.name(), options.symbols, filter, each, diagnostics);
  }
  parse_script_text(input.text(), {.srcline = options.srcline}, filter, each, diagnostics);
  return {};
}

}  // namespace

Result<FlameBuildStats> add_to_flame_tree(const TextInput& input, const FlameBuildOptions& options,
                                          FlameTree& tree, Diagnostics& diagnostics) {
  FlameBuildStats stats;
  if (input.kind() == InputKind::folded) return add_folded_to_flame_tree(input.text(), tree);
  DwarfInlineExpander expander;
  StackCollapser collapser(options.collapse, &expander);
  // Each sample straight into the tree (a flame chart's time order, or merged): the tree sums
  // stacks as the collapser would, without keeping each distinct stack a second time.
  auto added = for_each_sample(input, options, diagnostics, [&](const StackSample& sample) {
    tree.add(collapser.fold(sample), collapser.names(), static_cast<double>(sample.period));
  });
  if (!added) return tl::unexpected(added.error());
  return stats;
}

Result<std::string> folded_text_of(const TextInput& input, const FlameBuildOptions& options,
                                   Diagnostics& diagnostics) {
  if (input.kind() == InputKind::folded) return std::string(input.text());
  DwarfInlineExpander expander;
  StackCollapser collapser(options.collapse, &expander);
  auto added =
      for_each_sample(input, options, diagnostics, [&](const StackSample& sample) { collapser.add(sample); });
  if (!added) return tl::unexpected(added.error());
  return collapser.folded_text();
}

FlameBuildStats add_folded_to_flame_tree(std::string_view folded, FlameTree& tree) {
  FlameBuildStats stats;
  stats.invalid_lines = for_each_folded_line(folded, [&](const FoldedLine& line) {
    if (line.count_before) {
      double delta = line.count - *line.count_before;
      tree.add_folded(line.stack, line.count, &delta);
    } else {
      tree.add_folded(line.stack, line.count);
    }
  });
  return stats;
}

FlameBuildStats add_diff_to_flame_tree(std::string_view diff_text, FlameTree& tree) {
  FlameBuildStats stats;
  stats.invalid_lines = for_each_folded_line(diff_text, [&](const FoldedLine& line) {
    double before = line.count_before.value_or(0);
    double delta = line.count - before;
    tree.add_folded(line.stack, line.count, &delta);
  });
  return stats;
}

}  // namespace sonde::analysis
