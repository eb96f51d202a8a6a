#pragma once
// perf's -e syntax: names and aliases, cache events, rNNN, pmu/term=val/, tracepoint globs,
// modifiers, per-event terms, comma lists and {groups}.
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "events/event_spec.hpp"

namespace sonde::events {

// Parses one -e argument and appends its events to `events` (so repeated -e options accumulate
// and group leader indexes stay valid across them). Tracepoint globs expand to one EventSpec per
// matching tracepoint, in tracefs's sorted order. On a syntax error the Error's message is two
// lines in perf's shape:
//   event syntax error: 'cycles:xz'
//                              \___ unknown modifier 'x'; ...
// and its exit_code is 129 as perf's.
Result<void> parse_events(std::string_view text, std::vector<EventSpec>& events);

// perf's --group (stat and record -g/--group): every event in one group led by the first, as if
// the whole list were written inside {...}.
void group_all(std::vector<EventSpec>& events);

}  // namespace sonde::events
