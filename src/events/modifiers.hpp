#pragma once
// Event modifiers, the letters after ':' ("cycles:upp", "{a,b}:k"), applied as perf applies them.
#include <string_view>

#include "events/event_spec.hpp"
#include "events/syntax.hpp"

namespace sonde::events {

// Applies `letters` (at `pos` in the -e argument) to `event`, starting from what its attr
// already says, so that a group modifier combines with each member's own. `leader` says whether
// :D (pinned) and :e (exclusive) may apply: the kernel takes them on group leaders only.
Parsed<void> apply_modifiers(EventSpec& event, std::string_view letters, size_t pos, bool leader);

}  // namespace sonde::events
