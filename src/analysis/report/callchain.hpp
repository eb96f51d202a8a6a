#pragma once
// One hist entry's callchain tree, as perf report prints it: runs of functions merged where
// chains agree (perf's radix tree: a node ends where chains fork or one ends), children that
// fall below the percent limit left out. Built from the entry's chain starts without walking
// what the limit hides: only groups at or above the threshold are expanded, the others are
// only counted (they still decide where perf's nodes split).
#include <cstdint>
#include <vector>

#include "analysis/report/hist.hpp"

namespace sonde::analysis {

enum class CallchainMode { graph, fractal, flat, folded };
enum class CallchainValue { percent, period, count };

struct CallchainParams {
  CallchainMode mode = CallchainMode::graph;
  double min_percent = 0.5;
  CallchainValue value = CallchainValue::percent;
  uint32_t print_limit = 0;  // 0: no limit
};

struct CallNode {
  std::vector<uint32_t> functions;  // the run, in print order
  uint64_t hit = 0;                 // chains ending at the run's last function
  uint64_t children_hit = 0;        // chains going on below it
  uint32_t hit_count = 0, children_count = 0;
  uint32_t parent = 0;
  std::vector<uint32_t> children;  // shown children; graph: by cumulated period, largest first

  uint64_t cumul() const { return hit + children_hit; }
  uint32_t cumul_count() const { return hit_count + children_count; }
};

struct CallTree {
  std::vector<CallNode> nodes;  // nodes[0] is the root: an empty run holding every chain
  // Flat and folded modes: the nodes to print, in order.
  std::vector<uint32_t> listed;
};

class CallchainBuilder {
 public:
  CallchainBuilder(Histogram& histogram, const LocationTable& locations, const CallchainParams& params,
                   uint64_t callchain_total);
  CallTree build(uint32_t entry);

 private:
  struct Group {
    uint32_t function;
    uint32_t begin, end;
    uint64_t period;
    uint32_t count;
  };
  void expand(std::span<ChainStart> starts, uint32_t depth, uint32_t node, CallTree& tree);
  // Splits `starts` (all `depth` steps in) by the function at the next step; chains that end
  // come first and are summed into hit/hit_count.
  std::vector<Group> group(std::span<ChainStart> starts, uint32_t depth, uint64_t& hit, uint32_t& hit_count);
  uint32_t function_at(const ChainStart& start, uint32_t depth, bool& ended) const;

  Histogram& histogram_;
  const LocationTable& locations_;
  const std::vector<uint32_t>& functions_;
  CallchainParams params_;
  uint64_t min_hit_;  // graph, flat, folded: perf's min_callchain_hits
  bool toward_leaf_;  // caller order: chains run from the start toward the leaf (index 0)
  std::vector<uint32_t> bucket_count_;
  std::vector<uint32_t> touched_;
  std::vector<ChainStart> scratch_;
  std::vector<uint32_t> keys_;  // per start: the function at the step being grouped
};

}  // namespace sonde::analysis
