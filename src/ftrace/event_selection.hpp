#pragma once
// trace-cmd's -e: "subsys", "subsys:event", globs in either part ("syscalls:sys_enter_*"), or a
// bare event name found in whichever subsystem has it.
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::ftrace {

struct TraceEvent {
  std::string system, name;
  bool operator==(const TraceEvent&) const = default;
};

struct EventSelection {
  std::string spec;                        // as the user wrote it
  std::vector<std::string> whole_systems;  // subsystems selected entirely (one write enables them)
  std::vector<TraceEvent> events;          // every event selected, the whole systems' included
};

// The catalogue it expands against: subsystem → its events.
struct EventCatalogue {
  std::vector<std::pair<std::string, std::vector<std::string>>> systems;
};
Result<EventCatalogue> read_event_catalogue();

// Expands one -e spec; an error names the spec when nothing matches.
Result<EventSelection> select_events(std::string_view spec, const EventCatalogue& catalogue);

}  // namespace sonde::ftrace
