#pragma once
// perf diff's text: per event, "# Event 'x'", the data files when there are more than two,
// the Baseline and compared columns, the sort-key columns, and one line per paired entry.
#include <cstdio>
#include <vector>

#include "analysis/diff/profile_diff.hpp"

namespace sonde::output {

void print_diff(std::FILE* out, const std::vector<analysis::EventDiff>& diffs,
                const analysis::DiffRequest& request);

}  // namespace sonde::output
