#include "events/listing.hpp"

#include <fnmatch.h>

#include <algorithm>

#include "base/strings.hpp"
#include "events/catalogue.hpp"
#include "events/tracepoints.hpp"
#include "kernel/pmu_sysfs.hpp"

namespace sonde::events {

namespace {

// Every event matches an empty glob.
bool glob_ok(std::string_view glob, std::string_view text, bool ignore_case = false) {
  if (glob.empty()) return true;
  return fnmatch(std::string(glob).c_str(), std::string(text).c_str(), ignore_case ? FNM_CASEFOLD : 0) == 0;
}

void add_symbols(std::span<const SymbolEvent> table, EventKind kind, std::string_view glob,
                 std::vector<ListedEvent>& out) {
  std::vector<std::string> names;
  for (const auto& event : table) {
    if (!glob_ok(glob, event.name) && (event.alias.empty() || !glob_ok(glob, event.alias))) continue;
    names.push_back(event.alias.empty() ? std::string(event.name)
                                        : fmt::format("{} OR {}", event.name, event.alias));
  }
  std::sort(names.begin(), names.end());
  for (auto& name : names) out.push_back({std::move(name), kind});
}

void add_cache(std::string_view glob, std::vector<ListedEvent>& out) {
  for (auto& name : cache_event_names())
    if (glob_ok(glob, name)) out.push_back({std::move(name), EventKind::HardwareCache});
}

void add_pmu_events(std::string_view glob, std::vector<ListedEvent>& out) {
  for (const auto& pmu_name : kernel::pmu_names()) {
    auto pmu = kernel::read_pmu(pmu_name);
    if (!pmu) continue;
    for (const auto& event : pmu->events) {
      std::string name = fmt::format("{}/{}/", pmu_name, event.name);
      if (glob_ok(glob, name, true) || glob_ok(glob, event.name, true))
        out.push_back({name, EventKind::KernelPmu});
    }
  }
}

void add_descriptors(std::vector<ListedEvent>& out) {
  out.push_back({"rNNN", EventKind::RawDescriptor});
  out.push_back({"cpu/t1=v1[,t2=v2,t3 ...]/modifier", EventKind::RawDescriptor});
  out.push_back({"mem:<addr>[/len][:access]", EventKind::Breakpoint});
}

Result<void> add_tracepoints(std::string_view system_glob, std::string_view name_glob,
                             std::vector<ListedEvent>& out) {
  auto found = find_tracepoints(system_glob, name_glob);
  if (!found) return tl::unexpected(found.error());
  // perf list sorts by the whole "system:name" ("fib6:..." before "fib:...").
  std::vector<std::string> names;
  for (const auto& tracepoint : *found) names.push_back(tracepoint.system + ":" + tracepoint.name);
  std::sort(names.begin(), names.end());
  for (auto& name : names) out.push_back({std::move(name), EventKind::Tracepoint});
  return {};
}

}  // namespace

std::string_view event_kind_label(EventKind kind) {
  switch (kind) {
    case EventKind::Hardware:
      return "Hardware event";
    case EventKind::Software:
      return "Software event";
    case EventKind::HardwareCache:
      return "Hardware cache event";
    case EventKind::KernelPmu:
      return "Kernel PMU event";
    case EventKind::RawDescriptor:
      return "Raw hardware event descriptor";
    case EventKind::Breakpoint:
      return "Hardware breakpoint";
    case EventKind::Sdt:
      return "SDT event";
    case EventKind::Tracepoint:
      return "Tracepoint event";
  }
  return "";
}

Result<std::vector<ListedEvent>> list_events(std::string_view filter) {
  std::vector<ListedEvent> out;
  if (filter == "hw" || filter == "hardware") {
    add_symbols(hardware_events(), EventKind::Hardware, "", out);
  } else if (filter == "sw" || filter == "software") {
    add_symbols(software_events(), EventKind::Software, "", out);
  } else if (filter == "cache" || filter == "hwcache") {
    add_cache("", out);
  } else if (filter == "pmu") {
    add_pmu_events("", out);
  } else if (filter == "tracepoint") {
    if (auto added = add_tracepoints("*", "*", out); !added) return tl::unexpected(added.error());
  } else if (size_t colon = filter.find(':'); colon != std::string_view::npos) {
    // perf list 'sched:*': a glob over system and name.
    std::string_view system = filter.substr(0, colon);
    std::string_view name = filter.substr(colon + 1);
    if (auto added = add_tracepoints(system.empty() ? "*" : system, name.empty() ? "*" : name, out); !added)
      return tl::unexpected(added.error());
  } else {
    std::string glob = filter.empty() ? std::string() : fmt::format("*{}*", filter);
    add_symbols(hardware_events(), EventKind::Hardware, glob, out);
    add_symbols(software_events(), EventKind::Software, glob, out);
    add_cache(glob, out);
    add_pmu_events(glob, out);
    if (filter.empty()) add_descriptors(out);
    // A word matches tracepoint names (perf list does not look at the system for it). Without
    // tracefs, perf list leaves the tracepoints out silently; so does this.
    if (!add_tracepoints("*", glob.empty() ? "*" : glob, out)) {
    }
  }
  return out;
}

Result<std::vector<ListedEvent>> list_subsystem(std::string_view system) {
  std::vector<ListedEvent> out;
  // "subsys block:*" (or "block:blk_*") is read as perf reads the words: a tracepoint glob.
  size_t colon = system.find(':');
  std::string_view events = colon == std::string_view::npos ? "*" : system.substr(colon + 1);
  if (colon != std::string_view::npos) system = system.substr(0, colon);
  if (auto added = add_tracepoints(system, events.empty() ? "*" : events, out); !added)
    return tl::unexpected(added.error());
  return out;
}

}  // namespace sonde::events
