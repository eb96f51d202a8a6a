#include "analysis/report/group_hist.hpp"

#include <map>

#include "analysis/report/entry_order.hpp"

namespace sonde::analysis {

GroupHistogram::GroupHistogram(std::vector<Histogram*> members, const ReportTables& tables,
                               const HistOptions& options, size_t sort_index)
    : members_(std::move(members)) {
  EntryOrder order(tables, options);
  const size_t count = members_.size();
  // Rows by the entry tree's comparison: entries it finds equal are one row.
  auto tree_before = [&](const HistEntry* a, const HistEntry* b) { return order.tree_compare(*a, *b) > 0; };
  std::map<const HistEntry*, uint32_t, decltype(tree_before)> rows(tree_before);
  for (size_t m = 0; m < count; ++m) {
    const auto& entries = members_[m]->entries();
    for (uint32_t i = 0; i < entries.size(); ++i) {
      auto [at, added] = rows.emplace(&entries[i], static_cast<uint32_t>(representatives_.size()));
      if (added) {
        representatives_.push_back({static_cast<uint32_t>(m), i});
        figures_.resize(figures_.size() + count);
      }
      GroupFigures& f = figures_[at->second * count + m];
      const HistEntry& e = entries[i];
      f.children_period += e.children_period;
      f.self_period += e.self_period;
      f.sys_period += e.sys_period;
      f.usr_period += e.usr_period;
      f.self_samples += e.self_samples;
    }
  }
  auto compare_group = [&](uint32_t a, uint32_t b, uint64_t GroupFigures::*figure) {
    return compare_group_figures(&figures(a, 0), &figures(b, 0), count, sort_index, figure);
  };
  // perf's children column compares the leader's figure alone, then puts callers above callees
  // of one thread (the depth of the leader's entry; a row the leader lacks has none).
  const bool depth_rule = options.children && options.callchains;
  auto tid_of = [&](uint32_t row) {
    const Representative& r = representatives_[row];
    const Histogram& h = *members_[r.member];
    return tables.contexts[h.stack_context(h.entries()[r.entry].first_stack)].tid;
  };
  auto depth_of = [&](uint32_t row) { return representatives_[row].member == 0 ? entry(row).max_depth : 0; };
  auto compare_children = [&](uint32_t a, uint32_t b) {
    int c = compare_figures(figures(a, 0).children_period, figures(b, 0).children_period);
    if (c || !depth_rule || tid_of(a) != tid_of(b)) return c;
    int64_t d = int64_t(depth_of(b)) - int64_t(depth_of(a));
    if (options.order == CallchainOrder::caller) d = -d;
    return d > 0 ? 1 : d < 0 ? -1 : 0;
  };
  // -F's order: its figures (a group's) and keys as listed.
  auto listed = [&](uint32_t a, uint32_t b) {
    for (const ReportField& field : options.sort_list) {
      int c = 0;
      if (!field.is_figure)
        c = order.key_compare(field.key, entry(a), entry(b));
      else if (field.figure == ReportFigure::overhead_children)
        c = options.children ? compare_children(a, b) : 0;
      else
        c = compare_group(a, b, figure_field(field.figure));
      if (c) return c;
    }
    return 0;
  };
  auto before = [&](uint32_t a, uint32_t b) {
    if (!options.sort_list.empty()) return listed(a, b) > 0;
    int c = options.children ? compare_children(a, b) : 0;
    if (c == 0) c = compare_group(a, b, &GroupFigures::self_period);
    if (c == 0) c = order.keys_compare(entry(a), entry(b));
    return c > 0;
  };
  order_ = perf_output_order(
      representatives_.size(), [&](uint32_t a, uint32_t b) { return order.tree_compare(entry(a), entry(b)); },
      before);
}

uint64_t GroupFigures::*figure_field(ReportFigure figure) {
  switch (figure) {
    case ReportFigure::overhead_children:
      return &GroupFigures::children_period;
    case ReportFigure::overhead_sys:
      return &GroupFigures::sys_period;
    case ReportFigure::overhead_us:
      return &GroupFigures::usr_period;
    case ReportFigure::sample:
      return &GroupFigures::self_samples;
    case ReportFigure::overhead:
    case ReportFigure::period:
      break;
  }
  return &GroupFigures::self_period;
}

int compare_group_figures(const GroupFigures* a, const GroupFigures* b, size_t members, size_t sort_index,
                          uint64_t GroupFigures::*field) {
  const bool by_index = sort_index >= 1 && sort_index < members;
  if (by_index) {
    int c = compare_figures(a[sort_index].*field, b[sort_index].*field);
    if (c) return c;
  }
  for (size_t m = by_index ? 1 : 0; m < members; ++m) {
    if (by_index && m == sort_index) continue;
    int c = compare_figures(a[m].*field, b[m].*field);
    if (c) return c;
  }
  return 0;
}

std::vector<EventGroupSpan> report_event_groups(
    const std::optional<std::vector<perfdata::GroupDesc>>& file_groups, size_t event_count,
    std::optional<bool> group) {
  std::vector<EventGroupSpan> spans;
  if (group == false) return spans;
  if (file_groups)
    for (const perfdata::GroupDesc& desc : *file_groups) {
      if (desc.members < 2 || desc.leader + desc.members > event_count) continue;
      spans.push_back({desc.leader, desc.members, desc.name == "{anon_group}" ? "" : desc.name, false});
    }
  if (spans.empty() && group == true && event_count > 1) spans.push_back({0, event_count, "", true});
  return spans;
}

const HistEntry& GroupHistogram::entry(uint32_t row) const {
  const Representative& r = representatives_[row];
  return members_[r.member]->entries()[r.entry];
}

}  // namespace sonde::analysis
