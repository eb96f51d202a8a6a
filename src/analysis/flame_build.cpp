#include "analysis/flame_build.hpp"

#include "analysis/folded.hpp"
#include "analysis/stack_collapse_inline.hpp"

namespace sonde::analysis {

namespace {

template <typename Each>
void collapse_script(const TextInput& input, const FlameBuildOptions& options, StackCollapser& collapser,
                     const NoteSink& note, Each&& each) {
  EventFilter filter(options.event_filter);
  parse_script_text(
      input.text(), {.srcline = options.srcline}, filter,
      [&](const StackSample& sample) {
        collapser.add(sample);
        each(sample);
      },
      note);
}

}  // namespace

FlameBuildStats add_to_flame_tree(const TextInput& input, const FlameBuildOptions& options, FlameTree& tree,
                                  bool flamechart, const NoteSink& note) {
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
  std::vector<std::string_view> names;
  collapse_script(input, options, collapser, note, [&](const StackSample& sample) {
    if (!flamechart) return;
    collapser.last_stack_names(names);
    tree.add(names, static_cast<double>(sample.period));
  });
  if (!flamechart)
    collapser.for_each_stack([&](const std::vector<std::string_view>& stack, uint64_t count) {
      tree.add(stack, static_cast<double>(count));
    });
  return stats;
}

std::string folded_text_of(const TextInput& input, const FlameBuildOptions& options, const NoteSink& note) {
  if (input.kind() == InputKind::folded) return std::string(input.text());
  DwarfInlineExpander expander;
  StackCollapser collapser(options.collapse, &expander);
  collapse_script(input, options, collapser, note, [](const StackSample&) {});
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
