// libFuzzer target for the event spec parser (`-e`, src/events/parse_events.cpp) and the
// tracepoint filter rewriter (`--filter`, src/events/tracepoint_filter.cpp). One input is up to
// three parts separated by newlines: the -e text, a filter, and a tracepoint format. The -e text
// is parsed as `sonde record -e` parses it (PMU terms, modifiers, groups, tracepoint globs against
// the live tracefs, breakpoints, raw events); the filter is applied to each tracepoint it named,
// as --filter after it would be, and its bare string operands quoted against the fields the format
// declares as strings. Errors are expected; crashes, hangs and an event without a name are not.
#include <cstdint>
#include <string>
#include <vector>

#include "events/event_spec.hpp"
#include "events/parse_events.hpp"
#include "events/tracepoint_filter.hpp"
#include "fuzz_input.hpp"

using namespace sonde;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  size_t first = text.find('\n');
  std::string_view spec = text.substr(0, first);
  std::string_view rest = first == std::string_view::npos ? std::string_view() : text.substr(first + 1);
  size_t second = rest.find('\n');
  std::string filter(rest.substr(0, second));
  std::string_view format = second == std::string_view::npos ? std::string_view() : rest.substr(second + 1);

  std::vector<events::EventSpec> specs;
  if (events::parse_events(spec, specs)) {
    fuzz::require(!specs.empty(), "event_spec", "parsed without error and without an event");
    for (events::EventSpec& event : specs) {
      fuzz::require(!event.name.empty(), "event_spec", "an event without a name");
      if (event.is_tracepoint()) (void)events::set_tracepoint_filter(event, filter);
    }
  }
  (void)events::quote_bare_string_operands(filter, events::string_fields_of_format(format));
  return 0;
}
