#pragma once
// perf report --stdio's call-graph text under a hist entry: graph (absolute percentages),
// fractal (relative to the parent), flat and folded, with perf's exact margins and pipes.
#include <cstdint>
#include <cstdio>
#include <string>

#include "analysis/report/callchain.hpp"

namespace sonde::output {

struct CallgraphStyle {
  analysis::CallchainMode mode = analysis::CallchainMode::graph;
  analysis::CallchainValue value = analysis::CallchainValue::percent;
  uint32_t print_limit = 0;
  // perf leaves out the first function of a lone top chain when sorting by symbol first: the
  // entry's own line already names it.
  bool skip_first_function = false;
};

// Prints `tree` for an entry whose period is `entry_period` in an event whose total period is
// `total_period`. Function names come from `locations`.
void print_callgraph(std::FILE* out, const analysis::CallTree& tree, const analysis::LocationTable& locations,
                     const CallgraphStyle& style, uint64_t total_period, uint64_t entry_period);

// A callchain function as perf names it: the symbol, or the address in hex.
std::string callchain_function_name(const analysis::Function& function);

}  // namespace sonde::output
