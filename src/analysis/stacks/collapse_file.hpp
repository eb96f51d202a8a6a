#pragma once
// A perf.data file folded into stackcollapse-perf.pl's lines, as `sonde collapse FILE` prints
// them: for `sonde report -g folded`, which prints the same lines.
#include <string>

#include "analysis/stacks/script_text.hpp"
#include "analysis/stacks/stack_collapse.hpp"
#include "base/error.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::analysis {

// The folded lines, sorted as stackcollapse-perf.pl sorts them. Samples of events other than
// `event_filter` (default: the first seen) are left out, with a note to `diagnostics`.
Result<std::string> collapse_perf_data(const std::string& path, const CollapseOptions& options,
                                       const symbols::SymbolizerOptions& symbols,
                                       const std::string& event_filter, Diagnostics& diagnostics);

}  // namespace sonde::analysis
