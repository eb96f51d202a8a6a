#pragma once
// perf report's order of hist entries: its entry tree's comparison (hist_entry__cmp, which also
// says which entries are the same across an event group's members) and its output sort's
// comparison of the sort keys, and the red-black tree insertion that makes the final order.
#include <cstdint>
#include <functional>
#include <vector>

#include "analysis/report/hist.hpp"

namespace sonde::analysis {

class EntryOrder {
 public:
  EntryOrder(const ReportTables& tables, const HistOptions& options) : tables_(tables), options_(options) {}
  // hist_entry__cmp over the sort keys: > 0 puts `a` before `b` in perf's entry tree; 0: the
  // same entry.
  int tree_compare(const HistEntry& a, const HistEntry& b) const;
  // The output sort's comparison of the sort keys, after the figures: > 0 puts `a` first.
  int keys_compare(const HistEntry& a, const HistEntry& b) const;
  // The same of one key.
  int key_compare(SortKey key, const HistEntry& a, const HistEntry& b) const;

 private:
  int shared_key_compare(SortKey key, const HistEntry& a, const HistEntry& b) const;
  const Function& function_of(const HistEntry& e) const;
  const session::Dso* dso_of(const HistEntry& e) const;
  const ReportTables& tables_;
  const HistOptions& options_;
};

// A figure as perf's output sort compares it: > 0 when `a` is the larger.
inline int compare_figures(uint64_t a, uint64_t b) { return a < b ? -1 : a > b ? 1 : 0; }

// `count` entries in perf's output order: sorted by `tree` (> 0 first; the entry tree's order),
// then inserted into a red-black tree going left when `before` says so. perf's children-mode
// comparison is not transitive (callers above callees only within one thread), so the order is
// the tree's: the same insertions are replayed into libstdc++'s red-black tree (the same insert
// and rebalance cases as the kernel's rbtree).
std::vector<uint32_t> perf_output_order(size_t count, const std::function<int(uint32_t, uint32_t)>& tree,
                                        const std::function<bool(uint32_t, uint32_t)>& before);

}  // namespace sonde::analysis
