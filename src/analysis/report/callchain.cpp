#include "analysis/report/callchain.hpp"

#include <algorithm>
#include <cmath>

namespace sonde::analysis {

CallchainBuilder::CallchainBuilder(Histogram& histogram, const LocationTable& locations,
                                   const CallchainParams& params, uint64_t callchain_total)
    : histogram_(histogram), locations_(locations), functions_(histogram.chain_functions()), params_(params) {
  // perf: min_callchain_hits = total * (min_percent / 100), truncated to an integer.
  min_hit_ = static_cast<uint64_t>(static_cast<double>(callchain_total) * (params.min_percent / 100.0));
  toward_leaf_ = histogram.options().order == CallchainOrder::caller;
  bucket_count_.assign(locations.function_count(), 0);
}

uint32_t CallchainBuilder::function_at(const ChainStart& start, uint32_t depth, bool& ended) const {
  ended = depth >= start.remaining;
  if (ended) return kNoId;
  return functions_[toward_leaf_ ? start.position - depth : start.position + depth];
}

std::vector<CallchainBuilder::Group> CallchainBuilder::group(std::span<ChainStart> starts, uint32_t depth,
                                                             uint64_t& hit, uint32_t& hit_count) {
  hit = 0;
  hit_count = 0;
  touched_.clear();
  keys_.resize(starts.size());
  uint32_t ended_count = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    bool ended;
    uint32_t function = function_at(starts[i], depth, ended);
    keys_[i] = function;
    if (ended) {
      ++ended_count;
      hit += histogram_.stack_period(starts[i].stack);
      hit_count += histogram_.stack_samples(starts[i].stack);
      continue;
    }
    if (bucket_count_[function]++ == 0) touched_.push_back(function);
  }
  std::sort(touched_.begin(), touched_.end(), [&](uint32_t a, uint32_t b) {
    return locations_.function(a).rank < locations_.function(b).rank;
  });
  std::vector<Group> groups;
  groups.reserve(touched_.size());
  uint32_t offset = ended_count;
  for (uint32_t function : touched_) {
    groups.push_back({function, offset, offset, 0, 0});
    offset += bucket_count_[function];
    bucket_count_[function] = static_cast<uint32_t>(groups.size() - 1);  // now: the group's index
  }
  scratch_.resize(starts.size());
  uint32_t ended_at = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    const ChainStart& start = starts[i];
    if (keys_[i] == kNoId) {
      scratch_[ended_at++] = start;
      continue;
    }
    Group& g = groups[bucket_count_[keys_[i]]];
    scratch_[g.end++] = start;
    g.period += histogram_.stack_period(start.stack);
    g.count += histogram_.stack_samples(start.stack);
  }
  std::copy(scratch_.begin(), scratch_.begin() + starts.size(), starts.begin());
  for (uint32_t function : touched_) bucket_count_[function] = 0;
  return groups;
}

void CallchainBuilder::expand(std::span<ChainStart> starts, uint32_t depth, uint32_t node, CallTree& tree) {
  for (;;) {
    uint64_t hit;
    uint32_t hit_count;
    std::vector<Group> groups = group(starts, depth, hit, hit_count);
    // Inside a run: one way on and nothing ending here.
    if (node != 0 && hit == 0 && groups.size() == 1) {
      tree.nodes[node].functions.push_back(groups[0].function);
      starts = starts.subspan(groups[0].begin, groups[0].end - groups[0].begin);
      ++depth;
      continue;
    }
    uint64_t children_hit = 0;
    uint32_t children_count = 0;
    for (const Group& g : groups) {
      children_hit += g.period;
      children_count += g.count;
    }
    {
      CallNode& n = tree.nodes[node];
      n.hit = hit;
      n.hit_count = hit_count;
      n.children_hit = children_hit;
      n.children_count = children_count;
    }
    uint64_t threshold = min_hit_;
    if (params_.mode == CallchainMode::fractal)
      threshold =
          static_cast<uint64_t>(std::ceil(static_cast<double>(children_hit) * (params_.min_percent / 100.0)));
    for (const Group& g : groups) {
      if (g.period < threshold) continue;
      uint32_t child = static_cast<uint32_t>(tree.nodes.size());
      CallNode child_node;
      child_node.functions.push_back(g.function);
      child_node.parent = node;
      tree.nodes.push_back(std::move(child_node));
      tree.nodes[node].children.push_back(child);
      expand(starts.subspan(g.begin, g.end - g.begin), depth + 1, child, tree);
    }
    return;
  }
}

CallTree CallchainBuilder::build(uint32_t entry) {
  CallTree tree;
  tree.nodes.emplace_back();
  expand(histogram_.chain_starts(entry), 0, 0, tree);

  if (params_.mode == CallchainMode::flat || params_.mode == CallchainMode::folded) {
    // perf lists every node with hits of its own, post-order, then by those hits.
    std::vector<std::pair<uint32_t, size_t>> stack{{0, 0}};
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < tree.nodes[node].children.size()) {
        uint32_t child = tree.nodes[node].children[next++];
        stack.emplace_back(child, 0);
        continue;
      }
      const CallNode& n = tree.nodes[node];
      if (node != 0 && n.hit && n.hit >= min_hit_) tree.listed.push_back(node);
      stack.pop_back();
    }
    std::stable_sort(tree.listed.begin(), tree.listed.end(),
                     [&](uint32_t a, uint32_t b) { return tree.nodes[a].hit > tree.nodes[b].hit; });
  } else {
    for (CallNode& n : tree.nodes)
      std::stable_sort(n.children.begin(), n.children.end(),
                       [&](uint32_t a, uint32_t b) { return tree.nodes[a].cumul() > tree.nodes[b].cumul(); });
  }
  return tree;
}

}  // namespace sonde::analysis
