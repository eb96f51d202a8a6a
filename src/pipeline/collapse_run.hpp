#pragma once
// sonde collapse: folded stacks ("comm;caller;...;leaf count") from a perf.data file (replayed
// through the session, frames named as perf script names them) or from perf script text.
#include <string>

#include "analysis/stacks/stack_collapse.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::pipeline {

struct CollapseRequest {
  std::string input;  // a perf.data file or perf script text; empty or "-": stdin (text only)
  analysis::CollapseOptions options;
  std::string event_filter;  // fold only samples of this event (default: the first seen)
  bool srcline = false;      // the text is perf script -F+srcline
  bool wakers = false;       // offwaketime's chains of a record --off-cpu --wakers file
  bool wall = false;         // on- and off-CPU time of a record --off-cpu file, with the states
};

// The folded text, stackcollapse-perf.pl's byte for byte. The event filter's notes go to
// `diagnostics`.
Result<std::string> collapse_stacks(const CollapseRequest& request, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
