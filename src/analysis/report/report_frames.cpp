#include "analysis/report/report_frames.hpp"

#include <algorithm>
#include <unordered_map>

namespace sonde::analysis {

char LocationTable::level_of(const session::Location& location) {
  switch (location.cpumode) {
    case PERF_RECORD_MISC_KERNEL:
      return 'k';
    case PERF_RECORD_MISC_GUEST_KERNEL:
      return 'g';
    case PERF_RECORD_MISC_GUEST_USER:
      return 'u';
    case PERF_RECORD_MISC_HYPERVISOR:
      return 'H';
    default:
      return '.';
  }
}

void LocationTable::resolve(FrameResolver& resolver) {
  if (resolved_ == locations_.size()) return;
  // Each (DSO, symbol start) is one Function; so is each address nothing names, and each name
  // an unwound address inlines (perf tells inline frames apart by name).
  size_t end = locations_.size();
  for (size_t id = resolved_; id < end; ++id) {
    FrameLocation& location = locations_[id];
    std::optional<FrameResolver::Symbol> symbol;
    if (location.dso) symbol = resolver.symbol(*location.dso, location.address);
    uint64_t dso = location.dso ? location.dso->id + 1 : 0;
    bool inserted;
    uint32_t function = symbol ? function_index_.intern({dso, 1, symbol->start}, inserted)
                               : function_index_.intern({dso, 0, location.address}, inserted);
    if (inserted) {
      Function f;
      f.dso = location.dso;
      f.resolved = symbol.has_value();
      f.start = symbol ? symbol->start : location.address;
      f.ip = location.ip;
      if (symbol) f.name = std::move(symbol->name);
      functions_.push_back(std::move(f));
    }
    location.function = function;
    if (location.unwound && location.dso && symbol) expand(static_cast<uint32_t>(id), resolver);
  }
  resolved_ = locations_.size();
  std::vector<uint32_t> order(functions_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  auto dso_order = [](const session::Dso* dso) { return dso ? uint64_t(dso->id) + 1 : 0; };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Function& fa = functions_[a];
    const Function& fb = functions_[b];
    // perf inserts a new child left of an existing one that compares lower, so its children
    // run from the highest (DSO, address) down; DSOs compare by allocation, i.e. creation order.
    if (dso_order(fa.dso) != dso_order(fb.dso)) return dso_order(fa.dso) > dso_order(fb.dso);
    return fa.start > fb.start;
  });
  for (uint32_t rank = 0; rank < order.size(); ++rank) functions_[order[rank]].rank = rank;
}

void LocationTable::expand(uint32_t id, FrameResolver& resolver) {
  FrameLocation original = locations_[id];
  std::vector<FrameResolver::UnwoundName> names = resolver.unwound_frames(*original.dso, original.address);
  if (names.empty()) return;
  std::vector<uint32_t>& expanded = expansions_[id];
  for (FrameResolver::UnwoundName& name : names) {
    FrameLocation derived = original;
    derived.unwound = false;
    if (name.inlined) {
      auto [it, fresh] = inline_name_ids_.emplace(name.name, static_cast<uint32_t>(inline_name_ids_.size()));
      bool inserted;
      // perf's inline symbols are told apart by name and by the symbol holding them.
      derived.function =
          function_index_.intern({uint64_t(original.dso->id) + 1, 2 | uint64_t(it->second) << 2,
                                  functions_[original.function].start},
                                 inserted);
      if (inserted) {
        Function f = functions_[original.function];  // the holder's place: same DSO and start
        f.name = name.name;
        f.inlined = true;
        functions_.push_back(std::move(f));
      }
    }
    uint32_t derived_id = static_cast<uint32_t>(locations_.size());
    locations_.push_back(derived);
    if (!name.srcline.empty()) inline_srclines_[derived_id] = std::move(name.srcline);
    expanded.push_back(derived_id);
  }
}

void LocationTable::resolve_srclines(FrameResolver& resolver) {
  std::unordered_map<std::string, uint32_t> ids;
  for (uint32_t i = 0; i < srclines_.size(); ++i) ids.emplace(srclines_[i], i);
  for (uint32_t id = 0; id < locations_.size(); ++id) {
    FrameLocation& location = locations_[id];
    if (location.srcline != kNoId) continue;
    auto inline_line = inline_srclines_.find(id);
    std::string line = inline_line != inline_srclines_.end() ? inline_line->second
                       : location.dso ? resolver.srcline(*location.dso, location.address)
                                      : "";
    const Function& function = functions_[location.function];
    if (line.empty() && location.dso && function.resolved) {
      // perf's fallback with a symbol: "name+offset", the offset in decimal.
      uint64_t at = resolver.symbol_address(*location.dso, location.address);
      line = function.name + "+" + std::to_string(at - function.start);
    }
    if (line.empty()) {
      // perf's fallback: the DSO and offset, or ??:0 without a DSO.
      char buffer[64];
      if (location.dso)
        line = location.dso->short_name + "[" +
               std::string(buffer, std::snprintf(buffer, sizeof buffer, "%lx", location.address)) + "]";
      else
        line = "??:0";
    }
    auto [it, inserted] = ids.emplace(line, static_cast<uint32_t>(srclines_.size()));
    if (inserted) srclines_.push_back(line);
    location.srcline = it->second;
  }
}

std::vector<std::string> LocationTable::unresolved_descriptions() const {
  std::vector<std::string> lines;
  for (const Function& f : functions_) {
    if (f.resolved) continue;
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "%#lx", f.start);
    lines.push_back(std::string(buffer) + " in " + (f.dso ? f.dso->long_name : std::string("[unknown]")));
  }
  return lines;
}

}  // namespace sonde::analysis
