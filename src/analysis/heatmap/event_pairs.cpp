#include "analysis/heatmap/event_pairs.hpp"

namespace sonde::analysis {

void EventPairMatcher::end(const PairKey& key, uint64_t time_ns) {
  auto it = pending_.find(key);
  if (it == pending_.end() || it->second > time_ns) {
    unmatched_ends_++;
    return;
  }
  pairs_.push_back({it->second, time_ns - it->second});
  pending_.erase(it);
}

}  // namespace sonde::analysis
