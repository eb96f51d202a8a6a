#include "pipeline/collapse_run.hpp"

#include "analysis/flame/flame_input.hpp"
#include "analysis/stacks/script_text.hpp"
#include "analysis/stacks/session_stacks.hpp"
#include "analysis/stacks/stack_collapse_inline.hpp"
#include "analysis/stacks/wakeup_chains.hpp"
#include "analysis/stacks/wall_time.hpp"

namespace sonde::pipeline {

namespace {

Result<std::string> wakeup_chains(const CollapseRequest& request, const analysis::TextInput& input,
                                  Diagnostics& diagnostics) {
  if (input.kind() != analysis::InputKind::perf_data || request.input.empty() || request.input == "-")
    return fail("--wakers reads a perf.data file recorded with 'sonde record --off-cpu --wakers'");
  analysis::WakeupChains chains(request.options);
  analysis::EventFilter filter(std::vector<std::string>{analysis::kBlockedEvent, analysis::kWakerEvent});
  auto add = [&](const analysis::StackSample& sample) { chains.add(sample); };
  if (auto replayed = analysis::for_each_session_stack(input.name(), {}, filter, add, diagnostics); !replayed)
    return tl::unexpected(replayed.error());
  if (!chains.has_wakers())
    return failf("{} has no off-CPU wake-ups; record them with 'sonde record --off-cpu --wakers'",
                 request.input);
  return chains.folded_text();
}

}  // namespace

Result<std::string> collapse_stacks(const CollapseRequest& request, Diagnostics& diagnostics) {
  auto input = analysis::TextInput::open(request.input);
  if (!input) return tl::unexpected(input.error());
  if (request.wakers) return wakeup_chains(request, *input, diagnostics);
  analysis::DwarfInlineExpander expander;
  analysis::StackCollapser collapser(request.options, &expander);
  analysis::EventFilter filter(request.event_filter);
  auto add = [&](const analysis::StackSample& sample) { collapser.add(sample); };
  if (request.wall) {
    if (input->kind() != analysis::InputKind::perf_data || request.input.empty() || request.input == "-")
      return fail("--wall reads a perf.data file recorded with 'sonde record --off-cpu'");
    if (auto replayed = analysis::for_each_wall_time_stack(input->name(), {}, add, diagnostics); !replayed)
      return tl::unexpected(replayed.error());
    return collapser.folded_text();
  }
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
