#pragma once
// report -T's table of each thread's counts, after the profile, in perf's two layouts: one
// column per event (--pretty normal, the default), or one line per thread and event (raw).
#include <cstdio>

#include "analysis/report/thread_counts.hpp"

namespace sonde::output {

void print_thread_counts(std::FILE* out, const analysis::ThreadCounts& counts, bool raw);

}  // namespace sonde::output
