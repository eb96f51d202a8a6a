#pragma once
// --filter text as the kernel takes it. perf hands the text over as it is, and the kernel refuses
// a string field compared with a bare word: 'comm != perf' is EINVAL (perf 6.1 fails with it on
// this kernel too), 'comm != "perf"' is accepted. sonde quotes such words, so the seeds'
// one-liners (`--filter 'next_comm != perf && prev_comm != perf'`) work.
#include <string>
#include <string_view>
#include <unordered_set>

#include "base/error.hpp"
#include "events/event_spec.hpp"

namespace sonde::events {

// `filter` with every bare word compared (==, !=, ~) to one of `string_fields` put in double
// quotes. Everything else, quoted strings included, is left as written.
std::string quote_bare_string_operands(std::string_view filter,
                                       const std::unordered_set<std::string>& string_fields);

// The fields of a tracepoint format ("field:char comm[16]; ...") the kernel compares as
// strings: char arrays, __data_loc strings and char pointers.
std::unordered_set<std::string> string_fields_of_format(std::string_view format);

// Sets a tracepoint's --filter: as written, with bare words compared to string fields quoted
// or with `comm`, which the kernel offers on every event (the tracepoint's format is read only
// when the filter has such a comparison at all).
Result<void> set_tracepoint_filter(EventSpec& event, const std::string& filter);

}  // namespace sonde::events
