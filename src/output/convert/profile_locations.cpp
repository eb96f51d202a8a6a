#include "output/convert/profile_locations.hpp"

#include <fmt/format.h>
#include <linux/perf_event.h>

#include <charconv>

namespace sonde::output {

namespace {

// "file.c:12" -> {"file.c", 12}; anything else (perf's "dso[addr]" fallback, "??:0") -> {"", 0}.
std::pair<std::string, int64_t> split_srcline(std::string_view srcline) {
  size_t colon = srcline.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || srcline.starts_with("??")) return {"", 0};
  int64_t line = 0;
  std::string_view digits = srcline.substr(colon + 1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), line);
  if (ec != std::errc() || end != digits.data() + digits.size()) return {"", 0};
  return {std::string(srcline.substr(0, colon)), line};
}

}  // namespace

bool counts_nanoseconds(const perfdata::EventAttr& event, std::string_view name) {
  const perf_event_attr& attr = event.attr;
  return (attr.type == PERF_TYPE_SOFTWARE &&
          (attr.config == PERF_COUNT_SW_CPU_CLOCK || attr.config == PERF_COUNT_SW_TASK_CLOCK)) ||
         name == "offcpu-time";
}

uint32_t ProfileLocations::location_of(const session::Location& loc) {
  uint32_t mapping = 0;
  if (loc.map != nullptr) {
    bool inserted;
    uint32_t id = mapping_ids_.intern(
        {reinterpret_cast<uintptr_t>(loc.dso), loc.map->start, loc.map->end, loc.map->pgoff}, inserted);
    if (inserted) mappings_.push_back({loc.dso, loc.map->start, loc.map->end, loc.map->pgoff});
    mapping = id + 1;
  }
  bool inserted;
  uint32_t id = location_ids_.intern({mapping, loc.ip}, inserted);
  if (inserted) locations_.push_back({mapping, loc.ip, loc.dso, loc.dso_address});
  return id;
}

void ProfileLocations::append_stack(const session::SampleEvent& sample, std::vector<uint32_t>& ids) {
  if (!sample.callchain.empty()) {
    for (const session::Location& loc : sample.callchain) ids.push_back(location_of(loc));
    return;
  }
  const perfdata::Sample& s = sample.sample;
  size_t first = ids.size();
  auto add = [&](uint8_t cpumode, uint64_t ip) {
    const session::AddressSpace* space = sample.thread.maps.get();
    bool inserted;
    uint32_t key = raw_ids_.intern(
        {reinterpret_cast<uintptr_t>(space), space ? space->generation() : 0, ip, cpumode}, inserted);
    if (inserted)
      raw_locations_.push_back(location_of(session_.machine().locate(sample.thread, cpumode, ip)));
    ids.push_back(raw_locations_[key]);
  };
  if (s.has(PERF_SAMPLE_CALLCHAIN)) {
    uint8_t cpumode = PERF_RECORD_MISC_USER;
    for (size_t i = 0; i < s.callchain.size(); ++i) {
      uint64_t ip = s.callchain[i];
      if (ip >= PERF_CONTEXT_MAX)
        cpumode = session::context_cpumode(ip, cpumode);
      else
        add(cpumode, ip);
    }
  }
  if (ids.size() == first) add(sample.cpumode, s.ip);
}

std::vector<ProfileLocations::Frame> ProfileLocations::frames(const Location& location,
                                                              ScriptSymbols& symbols) const {
  std::vector<Frame> out;
  if (location.dso == nullptr) return out;
  const ResolvedSymbol& symbol = symbols.resolve(*location.dso, location.dso_address);
  if (!symbol.found) return out;
  if (location.dso->is_kernel()) {
    out.push_back({std::string(symbol.name), "", 0});
    return out;
  }
  for (const ResolvedInline& frame : symbols.inline_frames(*location.dso, location.dso_address)) {
    auto [file, line] = split_srcline(frame.srcline);
    out.push_back({frame.function, std::move(file), line});
  }
  if (out.empty()) {
    auto [file, line] = split_srcline(symbols.srcline(*location.dso, location.dso_address));
    out.push_back({std::string(symbol.name), std::move(file), line});
  }
  return out;
}

std::vector<ProfileLocations::Frame> ProfileLocations::named_frames(const Location& location,
                                                                    ScriptSymbols& symbols) const {
  std::vector<Frame> out = frames(location, symbols);
  if (out.empty()) {
    std::string where = location.dso != nullptr ? location.dso->short_name : "unknown";
    out.push_back({fmt::format("[unknown] {:#x} ({})", location.ip, where), "", 0});
  }
  return out;
}

}  // namespace sonde::output
