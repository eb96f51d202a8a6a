#pragma once
// Latency from pairs of events: a start event (block_rq_issue, sys_enter) and the end event
// that completes it (block_rq_complete, sys_exit), matched by a key (device and sector, the
// thread). The latest start of a key is the one an end completes, as iosnoop and
// trace2heatmap's block recipes pair them; an end with no pending start is counted, not paired.
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace sonde::analysis {

struct PairKey {
  uint64_t a = 0, b = 0;  // e.g. (dev, sector) or (tid, 0)
  bool operator==(const PairKey&) const = default;
};

struct LatencyPair {
  uint64_t start_ns = 0;
  uint64_t latency_ns = 0;
};

class EventPairMatcher {
 public:
  void start(const PairKey& key, uint64_t time_ns) { pending_[key] = time_ns; }
  void end(const PairKey& key, uint64_t time_ns);

  const std::vector<LatencyPair>& pairs() const { return pairs_; }
  uint64_t unmatched_ends() const { return unmatched_ends_; }
  size_t pending_starts() const { return pending_.size(); }

 private:
  struct KeyHash {
    size_t operator()(const PairKey& k) const { return k.a * 0x9e3779b97f4a7c15ull ^ (k.b + (k.a << 6)); }
  };
  std::unordered_map<PairKey, uint64_t, KeyHash> pending_;
  std::vector<LatencyPair> pairs_;
  uint64_t unmatched_ends_ = 0;
};

}  // namespace sonde::analysis
