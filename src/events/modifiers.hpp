#pragma once
// Event modifiers, the letters after ':' ("cycles:upp", "{a,b}:k"), applied as perf applies them.
#include <string>
#include <string_view>

#include "events/event_spec.hpp"
#include "events/syntax.hpp"

namespace sonde::events {

// Applies `letters` (at `pos` in the -e argument) to `event`, starting from what its attr
// already says, so that a group modifier combines with each member's own. `leader` says whether
// :D (pinned) and :e (exclusive) may apply: the kernel takes them on group leaders only.
// `group_modifier`: the letters follow a group ("{a,b}:u"); an event's own letters start guest
// and host from nothing, as perf 6.1's do, so "cycles:k" counts the guest too (exclude_guest 0)
// where a bare "cycles" does not.
Parsed<void> apply_modifiers(EventSpec& event, std::string_view letters, size_t pos, bool leader,
                             bool group_modifier = false);

// The modifiers perf prints after an event name it makes from the attr (evsel__add_modifiers):
// ":u" for a user-only event, "pp" for precise_ip 2, 'H' where the exclude_guest bit is what
// the other modifiers imply ("cpu-clock:uH" for a fallen-back "cycles:u"); "" when none.
std::string modifier_suffix_from_attr(const perf_event_attr& attr);

}  // namespace sonde::events
