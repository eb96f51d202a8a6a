#pragma once
// perf report --hierarchy: the entries folded level by level, one level per sort key (comm,
// then each comm's DSOs, then each DSO's symbols), every node with the sum of the entries under
// it, siblings ordered as perf orders a level: by the figures (an event group's as a group's
// are), then by that level's key.
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/report/group_hist.hpp"
#include "analysis/report/hist.hpp"

namespace sonde::analysis {

struct HierarchyNode {
  const HistEntry* entry = nullptr;   // an entry under it, whose key texts the node shows
  uint32_t depth = 0;                 // its sort key's index
  std::vector<GroupFigures> figures;  // one per group member (one without a group)
  std::vector<uint32_t> children;     // in perf's order
};

class Hierarchy {
 public:
  // One event's entries (its histogram built with `options.keys`).
  Hierarchy(Histogram& histogram, const ReportTables& tables, const HistOptions& options);
  // An event group's rows; `sort_index` as --group-sort-idx.
  Hierarchy(const GroupHistogram& group, const ReportTables& tables, const HistOptions& options,
            size_t sort_index);
  const std::vector<HierarchyNode>& nodes() const { return nodes_; }
  size_t members() const { return members_; }
  // Every node, parents before their children, as perf prints them.
  std::vector<uint32_t> walk() const;
  // The histogram whose call graphs the leaves show (the leader's, in a group), and a leaf's
  // entry in it (none for a group row the leader lacks).
  Histogram* graphed() const { return graphed_; }
  std::optional<uint32_t> graphed_entry(uint32_t node) const;

 private:
  struct Item {
    const HistEntry* entry;
    std::vector<GroupFigures> figures;
    std::optional<uint32_t> graphed_entry;
  };
  // Folds `items` (indexes into items_) at `depth` into nodes; their ids, ordered.
  std::vector<uint32_t> fold(std::vector<uint32_t> items, uint32_t depth);

  const ReportTables& tables_;
  const HistOptions& options_;
  size_t members_ = 1;
  size_t sort_index_ = 0;
  std::vector<Item> items_;
  Histogram* graphed_ = nullptr;
  std::vector<uint32_t> leaf_items_;  // per node: the item a leaf is
  std::vector<HierarchyNode> nodes_;
  std::vector<uint32_t> roots_;
};

}  // namespace sonde::analysis
