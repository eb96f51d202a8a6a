#include "analysis/report/entry_order.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace sonde::analysis {

namespace {

int compare_strings(const std::string& a, const std::string& b) {
  int c = a.compare(b);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}
template <typename T>
int compare_values(T a, T b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

// perf's (int64_t)(right - left) on addresses: the difference's sign, wrapping as it does.
int wrapped_compare(uint64_t right, uint64_t left) {
  int64_t d = static_cast<int64_t>(right - left);
  return d > 0 ? 1 : d < 0 ? -1 : 0;
}

}  // namespace

// The keys perf's entry tree (cmp) and output sort (sort) compare alike; sym and parent differ.
int EntryOrder::shared_key_compare(SortKey k, const HistEntry& a, const HistEntry& b) const {
  const LocationTable& locations = tables_.locations;
  switch (k) {
    case SortKey::comm:
      return compare_strings(tables_.comms[tables_.contexts[b.context].comm],
                             tables_.comms[tables_.contexts[a.context].comm]);
    case SortKey::pid:
      return compare_values(tables_.contexts[b.context].tid, tables_.contexts[a.context].tid);
    case SortKey::cpu:
      return compare_values(tables_.contexts[b.context].cpu, tables_.contexts[a.context].cpu);
    case SortKey::time:
      return compare_values(tables_.contexts[b.context].time, tables_.contexts[a.context].time);
    case SortKey::dso: {
      const session::Dso* da = dso_of(a);
      const session::Dso* db = dso_of(b);
      if (!da || !db) return (da == db) ? 0 : (!da ? -1 : 1);
      return compare_strings(db->short_name, da->short_name);
    }
    case SortKey::srcline:
      return compare_strings(locations.srcline(locations.location(b.location).srcline),
                             locations.srcline(locations.location(a.location).srcline));
    case SortKey::trace: {
      // perf compares payloads only within a tracepoint event; other events' are all equal.
      uint32_t ta = tables_.contexts[a.context].trace, tb = tables_.contexts[b.context].trace;
      if (ta == kNoId || tb == kNoId) return 0;
      return compare_strings(tables_.traces[tb], tables_.traces[ta]);
    }
    case SortKey::sym:
    case SortKey::parent:
      break;
  }
  return 0;
}

const Function& EntryOrder::function_of(const HistEntry& e) const {
  return tables_.locations.function(tables_.locations.location(e.location).function);
}

const session::Dso* EntryOrder::dso_of(const HistEntry& e) const {
  return tables_.locations.location(e.location).dso;
}

int EntryOrder::tree_compare(const HistEntry& a, const HistEntry& b) const {
  for (SortKey k : options_.keys) {
    int c = 0;
    switch (k) {
      case SortKey::sym: {
        const Function& fa = function_of(a);
        const Function& fb = function_of(b);
        if (!fa.resolved && !fb.resolved) {
          c = wrapped_compare(b.address, a.address);
        } else {
          const session::Dso* da = dso_of(a);
          const session::Dso* db = dso_of(b);
          if (da != db) c = (!da || !db) ? (!da ? -1 : 1) : compare_strings(db->short_name, da->short_name);
          if (c == 0) {
            if (!fa.resolved || !fb.resolved)
              c = !fa.resolved ? -1 : 1;
            else if (fa.inlined || fb.inlined)
              c = compare_strings(fa.name, fb.name);  // perf: by name first
            if (c == 0 && fa.resolved && fb.resolved) c = wrapped_compare(fb.start, fa.start);
          }
        }
        break;
      }
      case SortKey::parent:
        c = compare_values(b.parent, a.parent);
        break;
      default:
        c = shared_key_compare(k, a, b);
        break;
    }
    if (c) return c;
  }
  return 0;
}

int EntryOrder::keys_compare(const HistEntry& a, const HistEntry& b) const {
  for (SortKey k : options_.keys)
    if (int c = key_compare(k, a, b)) return c;
  return 0;
}

int EntryOrder::key_compare(SortKey key, const HistEntry& a, const HistEntry& b) const {
  switch (key) {
    case SortKey::sym: {
      const Function& fa = function_of(a);
      const Function& fb = function_of(b);
      if (!fa.resolved || !fb.resolved) return (fa.resolved == fb.resolved) ? 0 : (!fa.resolved ? -1 : 1);
      return compare_strings(fb.name, fa.name);
    }
    case SortKey::parent: {
      bool pa = a.parent != kNoId, pb = b.parent != kNoId;
      if (!pa || !pb) return (pa == pb) ? 0 : (!pa ? -1 : 1);
      const LocationTable& locations = tables_.locations;
      return compare_strings(locations.function(b.parent).name, locations.function(a.parent).name);
    }
    default:
      return shared_key_compare(key, a, b);
  }
}

std::vector<uint32_t> perf_output_order(size_t count, const std::function<int(uint32_t, uint32_t)>& tree,
                                        const std::function<bool(uint32_t, uint32_t)>& before) {
  std::vector<uint32_t> order(count);
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    int c = tree(a, b);
    return c != 0 ? c > 0 : a < b;
  });
  std::multiset<uint32_t, std::function<bool(uint32_t, uint32_t)>> inserted(before);
  for (uint32_t id : order) inserted.insert(id);
  order.assign(inserted.begin(), inserted.end());
  return order;
}

}  // namespace sonde::analysis
