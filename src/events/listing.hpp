#pragma once
// The catalogue behind `sonde list`: which events exist, in perf list's sections, filtered as
// perf list filters ("sw", "tracepoint", "sched:*", a plain word...).
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::events {

enum class EventKind {
  Hardware,
  Software,
  HardwareCache,
  KernelPmu,
  RawDescriptor,
  Breakpoint,
  Tracepoint,
  Sdt,  // a USDT marker of a binary in the build-id cache
};

// perf list's label for the kind: "Hardware event", "Tracepoint event"...
std::string_view event_kind_label(EventKind kind);

struct ListedEvent {
  std::string name;  // as perf list shows it: "context-switches OR cs", "msr/tsc/", "sched:sched_switch"
  EventKind kind;
};

// The events one `sonde list` argument selects, in the order perf list prints them. `filter`
// is a section word (hw, sw, cache, pmu, tracepoint), a tracepoint glob "sys:name", or any
// other word, which selects events whose names match "*word*". Empty means everything.
Result<std::vector<ListedEvent>> list_events(std::string_view filter);
// The tracepoints of one subsystem (a glob too): `sonde list subsys block`.
Result<std::vector<ListedEvent>> list_subsystem(std::string_view system);

}  // namespace sonde::events
