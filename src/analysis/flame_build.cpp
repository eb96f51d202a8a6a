#include "analysis/flame_build.hpp"

#include "analysis/session_stacks.hpp"

#include "analysis/folded.hpp"
#include "analysis/stack_collapse_inline.hpp"

namespace sonde::analysis {

namespace {

// Returns the error that stopped a perf.data file's replay, or "".
template <typename Each>
std::string collapse_script(const TextInput& input, const FlameBuildOptions& options, StackCollapser& collapser,
                     const NoteSink& note, Each&& each) {
  EventFilter filter(options.event_filter);
  if (input.kind() == InputKind::perf_data) {
    // A perf.data file: its samples straight from the session, named as perf script names them.
    auto replayed = for_each_session_stack(
        input.name(), options.symbols, filter,
        [&](const StackSample& sample) {
          collapser.add(sample);
          each(sample);
        },
        note);
    return replayed ? std::string() : replayed.error().message;
  }
  parse_script_text(
      input.text(), {.srcline = options.srcline}, filter,
      [&](const StackSample& sample) {
        collapser.add(sample);
        each(sample);
      },
      note);
  return {};
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
  stats.error = collapse_script(input, options, collapser, note, [&](const StackSample& sample) {
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

Result<std::string> folded_text_of(const TextInput& input, const FlameBuildOptions& options, const NoteSink& note) {
  if (input.kind() == InputKind::folded) return std::string(input.text());
  DwarfInlineExpander expander;
  StackCollapser collapser(options.collapse, &expander);
  std::string error = collapse_script(input, options, collapser, note, [](const StackSample&) {});
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
