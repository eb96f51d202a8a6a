#include "analysis/flame/flame_build.hpp"

#include "analysis/stacks/session_stacks.hpp"

#include "analysis/stacks/folded.hpp"
#include "analysis/stacks/stack_collapse_inline.hpp"

namespace sonde::analysis {

namespace {

// Calls `each(sample)` for every stack sample of perf script text or a perf.data file; returns
// the error that stopped a perf.data file's replay, or "".
template <typename Each>
std::string for_each_sample(const TextInput& input, const FlameBuildOptions& options, const NoteSink& note,
                            Each&& each) {
  EventFilter filter(options.event_filter);
  if (input.kind() == InputKind::perf_data) {
    // A perf.data file: its samples straight from the session, named as perf script names them.
    auto replayed = for_each_session_stack(input.name(), options.symbols, filter, each, note);
    return replayed ? std::string() : replayed.error().message;
  }
  parse_script_text(input.text(), {.srcline = options.srcline}, filter, each, note);
  return {};
}

}  // namespace

FlameBuildStats add_to_flame_tree(const TextInput& input, const FlameBuildOptions& options, FlameTree& tree,
                                  const NoteSink& note) {
  FlameBuildStats stats;
  if (input.kind() == InputKind::folded) {
    stats.invalid_lines = for_each_folded_line(input.text(), [&](const FoldedLine& line) {
      if (line.count_before) {
        double delta = line.count - *line.count_before;
        tree.add_folded(line.stack, line.count, &delta);
      } else {
        tree.add_folded(line.stack, line.count);
      }
    });
    return stats;
  }
  DwarfInlineExpander expander;
  StackCollapser collapser(options.collapse, &expander);
  // Each sample straight into the tree (a flame chart's time order, or merged): the tree sums
  // stacks as the collapser would, without keeping each distinct stack a second time.
  stats.error = for_each_sample(input, options, note, [&](const StackSample& sample) {
    tree.add(collapser.fold(sample), collapser.names(), static_cast<double>(sample.period));
  });
  return stats;
}

Result<std::string> folded_text_of(const TextInput& input, const FlameBuildOptions& options, const NoteSink& note) {
  if (input.kind() == InputKind::folded) return std::string(input.text());
  DwarfInlineExpander expander;
  StackCollapser collapser(options.collapse, &expander);
  std::string error = for_each_sample(input, options, note, [&](const StackSample& sample) { collapser.add(sample); });
  if (!error.empty()) return fail(error);
  return collapser.folded_text();
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
