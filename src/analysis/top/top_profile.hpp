#pragma once
// perf top's live histogram. Samples are placed and folded as they arrive into report's tables
// and histogram, so a screen's entries, columns and call graphs are perf report's; between
// screens perf top ages them (hists__decay_entries): each stack's period and sample count cut to
// 7/8, or dropped whole with -z, and what -K/-U hide dropped. A stack aged to nothing is dropped,
// so the histogram stays as big as what is hot now, however long top runs.
#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/report/hist.hpp"
#include "analysis/report/report_frames.hpp"
#include "analysis/report/sort_keys.hpp"
#include "format/sample.hpp"
#include "session/machine.hpp"

namespace sonde::analysis {

class TopProfile {
 public:
  explicit TopProfile(FrameResolver& resolver)
      : resolver_(resolver), histogram_(std::make_unique<Histogram>()) {}

  // One sample of `thread` (its comm now is the one shown), its sampled address and raw callchain
  // placed in `machine`'s maps. A sample in one of the kernel's idle functions is left out, as
  // perf top leaves it out (false).
  bool add(const session::Machine& machine, const session::Thread& thread, const perfdata::Sample& sample,
           uint8_t cpumode, uint64_t period);
  // A sample counted in the totals only (an event not shown).
  void add_unshown(uint64_t period) { histogram_->add_filtered(period); }

  // Names the locations added since the last call and builds the entries in perf's order.
  void build(const HistOptions& options);

  // perf top's ageing between screens: every stack's period and count to 7/8 (`zero`: to
  // nothing), and the stacks whose sampled address is in user space (`hide_user`) or the kernel
  // (`hide_kernel`) dropped. Call after build(): the sampled address's level comes from it.
  void age(bool zero, bool hide_user, bool hide_kernel);

  Histogram& histogram() { return *histogram_; }
  ReportTables& tables() { return tables_; }
  bool has_callchains() const { return histogram_->has_callchain(); }

 private:
  uint32_t place(const session::Machine& machine, const session::Thread& thread, uint8_t cpumode,
                 uint64_t ip);
  bool idle(uint32_t location);

  FrameResolver& resolver_;
  ReportTables tables_;
  std::vector<int8_t> idle_;  // per location: -1 not known yet, else whether it is an idle function
  std::unique_ptr<Histogram> histogram_;
  std::vector<uint32_t> locations_;
};

}  // namespace sonde::analysis
