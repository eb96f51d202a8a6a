#include "output/html/report_diff.hpp"

#include <algorithm>
#include <unordered_map>

namespace sonde::output {

HtmlReportDiff diff_tables(const HtmlReportTables& now, const HtmlReportTables& base, std::string title) {
  HtmlReportDiff diff;
  diff.title = std::move(title);
  size_t event = base.busiest_event;
  if (now.busiest_event < now.events.size())
    for (size_t e = 0; e < base.events.size(); ++e)
      if (base.events[e].name == now.events[now.busiest_event].name) event = e;
  if (event >= base.events.size()) return diff;
  diff.event = base.events[event].name;

  // The baseline's weight per node: its own samples, then each subtree's (prefixes come first).
  size_t nodes = base.stack_prefix.size();
  std::vector<double> self(nodes, 0), total(nodes, 0);
  for (size_t i = 0; i < base.times.size(); ++i) {
    if (base.sample_events[i] != event) continue;
    diff.sum += base.weights[i];
    if (base.sample_stacks[i] != UINT32_MAX) self[base.sample_stacks[i]] += base.weights[i];
  }
  for (size_t s = nodes; s-- > 0;) {
    total[s] += self[s];
    if (base.stack_prefix[s] >= 0) total[static_cast<size_t>(base.stack_prefix[s])] += total[s];
  }

  // Per function: its self weight, and its total counted once per path (at its outermost node).
  std::unordered_map<std::string, size_t> function_ids;
  std::vector<uint32_t> base_names(base.frames.size());
  for (size_t f = 0; f < base.frames.size(); ++f) {
    auto [it, fresh] = function_ids.try_emplace(base.frames[f].name, diff.functions.size());
    if (fresh) diff.functions.push_back({base.frames[f].name, 0, 0});
    base_names[f] = static_cast<uint32_t>(it->second);
  }
  for (size_t s = 0; s < nodes; ++s) {
    uint32_t name = base_names[base.stack_frame[s]];
    diff.functions[name].self += self[s];
    bool outermost = true;
    for (int32_t up = base.stack_prefix[s]; up >= 0 && outermost;
         up = base.stack_prefix[static_cast<size_t>(up)])
      outermost = base_names[base.stack_frame[static_cast<size_t>(up)]] != name;
    if (outermost) diff.functions[name].total += total[s];
  }

  // The new tree's nodes by (prefix + 1, function): a function is its name and DSO in both files
  // (a node's frame is one), so each baseline path is followed into the new tree.
  std::unordered_map<std::string, uint32_t> identities;
  auto identity = [&](const HtmlReportFrame& frame) {
    std::string key = frame.name + '\0' + frame.dso;
    return identities.try_emplace(std::move(key), static_cast<uint32_t>(identities.size())).first->second;
  };
  std::vector<uint32_t> now_ids(now.frames.size()), base_ids(base.frames.size());
  for (size_t f = 0; f < now.frames.size(); ++f) now_ids[f] = identity(now.frames[f]);
  for (size_t f = 0; f < base.frames.size(); ++f) base_ids[f] = identity(base.frames[f]);
  std::unordered_map<uint64_t, uint32_t> now_children;
  for (size_t s = 0; s < now.stack_prefix.size(); ++s)
    now_children.emplace(static_cast<uint64_t>(now.stack_prefix[s] + 1) << 32 | now_ids[now.stack_frame[s]],
                         static_cast<uint32_t>(s));
  std::vector<int64_t> mapped(nodes, -1);
  std::unordered_map<uint32_t, double> on_now;
  for (size_t s = 0; s < nodes; ++s) {
    int32_t prefix = base.stack_prefix[s];
    if (prefix >= 0 && mapped[static_cast<size_t>(prefix)] < 0) continue;
    int64_t parent = prefix >= 0 ? mapped[static_cast<size_t>(prefix)] : -1;
    auto found = now_children.find(static_cast<uint64_t>(parent + 1) << 32 | base_ids[base.stack_frame[s]]);
    if (found == now_children.end()) continue;
    mapped[s] = found->second;
    if (total[s] > 0) on_now[found->second] += total[s];
  }
  diff.node_totals.assign(on_now.begin(), on_now.end());
  std::sort(diff.node_totals.begin(), diff.node_totals.end());
  std::erase_if(diff.functions,
                [](const HtmlReportDiff::Function& f) { return f.total <= 0 && f.self <= 0; });
  std::sort(diff.functions.begin(), diff.functions.end(), [](const auto& a, const auto& b) {
    return a.self > b.self || (a.self == b.self && a.name < b.name);
  });
  return diff;
}

}  // namespace sonde::output
