#pragma once
// perf list's layout: "  <name padded to 50> [<kind>]", one event a line.
#include <cstdio>
#include <string>
#include <vector>

#include "events/event_spec.hpp"
#include "events/listing.hpp"

namespace sonde::output {

std::string format_event_list_line(const events::ListedEvent& event);
void print_event_list(std::FILE* out, const std::vector<events::ListedEvent>& events);
// One line per parsed event for `sonde list --parse`: the name, then key=value fields
// (type, config, group leader, and the exclude/precise/period bits that are set).
std::string format_parsed_event(size_t index, const events::EventSpec& event);

}  // namespace sonde::output
