#include "analysis/stacks/collapse_file.hpp"

#include "analysis/stacks/session_stacks.hpp"
#include "analysis/stacks/stack_collapse_inline.hpp"

namespace sonde::analysis {

Result<std::string> collapse_perf_data(const std::string& path, const CollapseOptions& options,
                                       const symbols::SymbolizerOptions& symbols,
                                       const std::string& event_filter, Diagnostics& diagnostics) {
  DwarfInlineExpander expander;
  StackCollapser collapser(options, &expander);
  EventFilter filter(event_filter);
  auto add = [&](const StackSample& sample) { collapser.add(sample); };
  if (auto replayed = for_each_session_stack(path, symbols, filter, add, diagnostics); !replayed)
    return tl::unexpected(replayed.error());
  return collapser.folded_text();
}

}  // namespace sonde::analysis
