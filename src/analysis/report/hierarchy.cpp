#include "analysis/report/hierarchy.hpp"

#include <algorithm>

#include "analysis/report/entry_order.hpp"

namespace sonde::analysis {

Hierarchy::Hierarchy(Histogram& histogram, const ReportTables& tables, const HistOptions& options)
    : tables_(tables), options_(options), graphed_(&histogram) {
  const auto& entries = histogram.entries();
  for (uint32_t i = 0; i < entries.size(); ++i) {
    const HistEntry& e = entries[i];
    items_.push_back(
        {&e, {{e.children_period, e.self_period, e.sys_period, e.usr_period, e.self_samples}}, i});
  }
  std::vector<uint32_t> all(items_.size());
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  if (!options.keys.empty()) roots_ = fold(std::move(all), 0);
}

Hierarchy::Hierarchy(const GroupHistogram& group, const ReportTables& tables, const HistOptions& options,
                     size_t sort_index)
    : tables_(tables),
      options_(options),
      members_(group.member_count()),
      sort_index_(sort_index),
      graphed_(&group.member(0)) {
  for (uint32_t row = 0; row < group.row_count(); ++row) {
    std::optional<uint32_t> leader_entry;
    if (group.entry_member(row) == 0) leader_entry = group.entry_index(row);
    Item item{&group.entry(row), {}, leader_entry};
    for (size_t m = 0; m < members_; ++m) item.figures.push_back(group.figures(row, m));
    items_.push_back(std::move(item));
  }
  std::vector<uint32_t> all(items_.size());
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  if (!options.keys.empty()) roots_ = fold(std::move(all), 0);
}

std::vector<uint32_t> Hierarchy::fold(std::vector<uint32_t> items, uint32_t depth) {
  // This level compares its own key alone.
  HistOptions level = options_;
  level.keys = {options_.keys[depth]};
  EntryOrder order(tables_, level);
  auto entry = [&](uint32_t item) -> const HistEntry& { return *items_[item].entry; };
  std::stable_sort(items.begin(), items.end(),
                   [&](uint32_t a, uint32_t b) { return order.tree_compare(entry(a), entry(b)) > 0; });
  std::vector<uint32_t> siblings;
  const bool leaf = depth + 1 == options_.keys.size();
  for (size_t run = 0; run < items.size();) {
    size_t end = run + 1;
    while (end < items.size() && order.tree_compare(entry(items[run]), entry(items[end])) == 0) ++end;
    HierarchyNode node;
    node.entry = items_[items[run]].entry;
    node.depth = depth;
    node.figures.resize(members_);
    for (size_t i = run; i < end; ++i)
      for (size_t m = 0; m < members_; ++m) {
        const GroupFigures& f = items_[items[i]].figures[m];
        GroupFigures& sum = node.figures[m];
        sum.children_period += f.children_period;
        sum.self_period += f.self_period;
        sum.sys_period += f.sys_period;
        sum.usr_period += f.usr_period;
        sum.self_samples += f.self_samples;
      }
    std::vector<uint32_t> below(items.begin() + static_cast<std::ptrdiff_t>(run),
                                items.begin() + static_cast<std::ptrdiff_t>(end));
    uint32_t id = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back(std::move(node));
    leaf_items_.push_back(items[run]);
    if (!leaf) {
      auto children = fold(std::move(below), depth + 1);
      nodes_[id].children = std::move(children);
    }
    siblings.push_back(id);
    run = end;
  }
  // Siblings in perf's output order: the figures (a children column by the leader's alone), then
  // this level's key.
  std::vector<uint32_t> positions = perf_output_order(
      siblings.size(),
      [&](uint32_t a, uint32_t b) {
        return order.tree_compare(*nodes_[siblings[a]].entry, *nodes_[siblings[b]].entry);
      },
      [&](uint32_t a, uint32_t b) {
        const HierarchyNode& na = nodes_[siblings[a]];
        const HierarchyNode& nb = nodes_[siblings[b]];
        int c = options_.children
                    ? compare_figures(na.figures[0].children_period, nb.figures[0].children_period)
                    : 0;
        if (c == 0)
          c = compare_group_figures(na.figures.data(), nb.figures.data(), members_, sort_index_,
                                    &GroupFigures::self_period);
        if (c == 0) c = order.keys_compare(*na.entry, *nb.entry);
        return c > 0;
      });
  std::vector<uint32_t> ordered;
  for (uint32_t p : positions) ordered.push_back(siblings[p]);
  return ordered;
}

std::optional<uint32_t> Hierarchy::graphed_entry(uint32_t node) const {
  if (!nodes_[node].children.empty()) return std::nullopt;
  return items_[leaf_items_[node]].graphed_entry;
}

std::vector<uint32_t> Hierarchy::walk() const {
  std::vector<uint32_t> out;
  std::vector<uint32_t> stack(roots_.rbegin(), roots_.rend());
  while (!stack.empty()) {
    uint32_t id = stack.back();
    stack.pop_back();
    out.push_back(id);
    const auto& children = nodes_[id].children;
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
  return out;
}

}  // namespace sonde::analysis
