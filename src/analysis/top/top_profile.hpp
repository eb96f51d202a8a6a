#pragma once
// perf top's live histogram. Samples are placed and folded as they arrive into report's tables
// and histogram, so a screen's entries, columns and call graphs are perf report's; between
// screens perf top ages them (hists__decay_entries): each stack's period and sample count cut to
// 7/8, or dropped whole with -z, and what -K/-U hide dropped. A stack aged to nothing is dropped,
// so the histogram stays as big as what is hot now, however long top runs.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/report/hist.hpp"
#include "analysis/report/report_frames.hpp"
#include "analysis/report/sort_keys.hpp"
#include "format/sample.hpp"
#include "session/machine.hpp"

namespace sonde::analysis {

class TopProfile {
 public:
  // `keys`: the sort keys the screens show. What they do not tell apart is folded together as
  // samples come (one context when none of comm, pid and cpu is shown; without callchains, one
  // location per function), so the histogram holds entries' worth of stacks, not one per address
  // and thread.
  TopProfile(FrameResolver& resolver, const std::vector<SortKey>& keys);

  // One sample of `thread` (its comm now is the one shown), its sampled address and raw callchain
  // placed in `machine`'s maps. A sample in one of the kernel's idle functions is left out, as
  // perf top leaves it out (false).
  bool add(const session::Machine& machine, const session::Thread& thread, const perfdata::Sample& sample,
           uint8_t cpumode, uint64_t period);

  // Names the locations added since the last call and builds the entries in perf's order.
  void build(const HistOptions& options);

  // perf top's ageing between screens: every stack's period and count to 7/8 (`zero`: to
  // nothing), and the stacks whose sampled address is in user space (`hide_user`) or the kernel
  // (`hide_kernel`) dropped. Call after build(): the sampled address's level comes from it.
  void age(bool zero, bool hide_user, bool hide_kernel);

  // The kernel's maps changed (a module's MMAP): kernel addresses are placed anew.
  void kernel_maps_changed() { ++kernel_generation_; }

  Histogram& histogram() { return *histogram_; }
  ReportTables& tables() { return tables_; }
  bool has_callchains() const { return histogram_->has_callchain(); }

 private:
  uint32_t place(const session::Machine& machine, const session::Thread& thread, uint8_t cpumode,
                 uint64_t ip);
  bool idle(uint32_t location);

  uint32_t context_of(const session::Thread& thread, int32_t cpu);
  // The first location of `location`'s function (its symbol, or itself unresolved).
  uint32_t function_location(uint32_t location);

  // Most samples repeat a recent thread, address and stack: small direct-mapped caches answer
  // before the tables' hash indexes (a screen's worth of samples costs little of a CPU).
  static constexpr unsigned kCacheBits = 12;
  struct RecentFrame {
    uint64_t where = 0;  // the address space and mode
    uint64_t ip = 0;
    uint64_t generation = 0;  // of the address space (or kernel_generation_) when placed
    uint32_t location = kNoId;
  };
  struct RecentStack {
    uint64_t key = UINT64_MAX;  // context << 32 | location
    uint32_t stack = kNoId;
  };
  std::array<RecentFrame, size_t{1} << kCacheBits> recent_frames_{};
  std::array<RecentStack, size_t{1} << kCacheBits> recent_stacks_{};  // in histogram_, cleared by age()
  uint64_t kernel_generation_ = 1;
  const session::Thread* last_thread_ = nullptr;
  int32_t last_tid_ = 0, last_cpu_ = -2;
  std::string last_comm_;
  uint32_t last_context_ = 0;

  FrameResolver& resolver_;
  bool one_context_ = false;                 // no comm, pid or cpu key
  std::vector<uint32_t> function_location_;  // per location, kNoId until known
  // Per DSO, by symbol start and level: the function's first location.
  std::unordered_map<const void*, std::unordered_map<uint64_t, uint32_t>> function_locations_;
  ReportTables tables_;
  std::vector<int8_t> idle_;  // per location: -1 not known yet, else whether it is an idle function
  std::unique_ptr<Histogram> histogram_;
  std::vector<uint32_t> locations_;
};

}  // namespace sonde::analysis
