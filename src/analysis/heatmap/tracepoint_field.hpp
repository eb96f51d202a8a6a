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

// A fixed-size number field's place in a payload, found once per event and read per sample as
// perf's evsel__intval reads it (signed fields sign-extended); absent, or a short payload, reads 0.
struct TracepointNumber {
  uint32_t offset = 0, size = 0;
  bool is_signed = false;
  bool present() const { return size != 0; }
  uint64_t read(sonde::Bytes raw) const {
    if (size == 0 || offset + size > raw.size()) return 0;
    uint64_t value = load_unsigned(raw.data() + offset, static_cast<int>(size));
    if (is_signed && size < 8) {
      unsigned shift = 64 - 8 * size;
      value = static_cast<uint64_t>(static_cast<int64_t>(value << shift) >> shift);
    }
    return value;
  }
};
// The number field `name` of `event` (common fields included); not present when the event lacks
// it or it is an array, a dynamic field or wider than 8 bytes.
TracepointNumber tracepoint_number(const tep_event* event, std::string_view name);

// The field's value in `raw`: a number (up to 8 bytes, signed ones sign-extended) as itself; an
// array, string or dynamic field by a hash of its bytes (up to a string's NUL). nullopt when
// the payload is too short to hold it.
std::optional<uint64_t> tracepoint_key_value(const tep_format_field& field, sonde::Bytes raw);

}  // namespace sonde::analysis
