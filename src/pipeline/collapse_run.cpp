#include "pipeline/collapse_run.hpp"

#include "analysis/flame/flame_input.hpp"
#include "analysis/stacks/script_text.hpp"
#include "analysis/stacks/session_stacks.hpp"
#include "analysis/stacks/stack_collapse_inline.hpp"

namespace sonde::pipeline {

Result<std::string> collapse_stacks(const CollapseRequest& request, Diagnostics& diagnostics) {
  auto input = analysis::TextInput::open(request.input);
  if (!input) return tl::unexpected(input.error());
  analysis::DwarfInlineExpander expander;
  analysis::StackCollapser collapser(request.options, &expander);
  analysis::EventFilter filter(request.event_filter);
  auto add = [&](const analysis::StackSample& sample) { collapser.add(sample); };
  if (input->kind() == analysis::InputKind::perf_data) {
    // A replay maps the file: a pipe cannot be given.
    if (request.input.empty() || request.input == "-")
      return fail("perf.data on standard input: give the file's name instead");
    if (auto replayed = analysis::for_each_session_stack(input->name(), {}, filter, add, diagnostics);
        !replayed)
      return tl::unexpected(replayed.error());
  } else {
    analysis::parse_script_text(input->text(), {.srcline = request.srcline}, filter, add, diagnostics);
  }
  return collapser.folded_text();
}

}  // namespace sonde::pipeline
