#pragma once
// offwaketime's folded chains from a recording made with `record --off-cpu --wakers`: each block
// of a thread as "comm;its stack, root first;--;the waker's stack, leaf first;waker comm N", N the
// time blocked in ns, so that a flame graph shows the blocked stack below and the one that woke
// it above. The recording follows each offcpu-time sample with an offcpu-waker one stamped the
// same; they are paired by that time, whichever comes first.
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/stacks/stack_collapse.hpp"
#include "analysis/stacks/stack_sample.hpp"

namespace sonde::analysis {

inline constexpr const char* kBlockedEvent = "offcpu-time";
inline constexpr const char* kWakerEvent = "offcpu-waker";

class WakeupChains {
 public:
  explicit WakeupChains(CollapseOptions options) : collapser_(options) {}
  // A sample of either event; others are ignored.
  void add(const StackSample& sample);
  // The chains, sorted as stackcollapse sorts, each "chain count\n", once every sample is in. A
  // block whose waker was not recorded ends in "--;[unknown]".
  std::string folded_text();
  // Whether the recording has wake-ups at all (made with --wakers).
  bool has_wakers() const { return waker_samples_ > 0; }

 private:
  void join(const std::vector<uint32_t>& blocked, const std::vector<uint32_t>& waker, uint64_t ns);

  StackCollapser collapser_;  // names the frames as collapse does
  struct Side {
    std::vector<uint32_t> frames;
    uint64_t ns = 0;
  };
  std::unordered_map<uint64_t, Side> blocked_, wakers_;  // by time, waiting for the other
  std::map<std::string, uint64_t> chains_;
  uint64_t waker_samples_ = 0;
};

}  // namespace sonde::analysis
