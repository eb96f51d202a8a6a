#pragma once
// A field of a tracepoint, as its format in the file's TRACING_DATA declares it (parsed once by
// session::TracepointFormats), read from a sample's raw payload as a value to match on: the
// device and sector of a block request, the pid of a wakeup.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/bytes.hpp"

struct tep_event;
struct tep_format_field;

namespace sonde::analysis {

// The field named `name` (common fields included), or nullptr.
const tep_format_field* find_tracepoint_field(const tep_event* event, std::string_view name);

// The event's own field names, comma separated, for messages.
std::string tracepoint_field_names(const tep_event* event);

// The field's value in `raw`: a number (up to 8 bytes, signed ones sign-extended) as itself; an
// array, string or dynamic field by a hash of its bytes (up to a string's NUL). nullopt when
// the payload is too short to hold it.
std::optional<uint64_t> tracepoint_key_value(const tep_format_field& field, sonde::Bytes raw);

}  // namespace sonde::analysis
