#pragma once
// A tracepoint payload's fields read as perf's converters read them (libtraceevent's field
// layout, little-endian): where a field's bytes are (a __data_loc field points elsewhere in the
// payload), an integer of 1, 2, 4 or 8 bytes sign-extended when signed, a string up to its NUL.
// Out-of-range fields read as 0 or "".
#include <traceevent/event-parse.h>

#include <cstdint>
#include <cstring>
#include <string_view>

#include "base/bytes.hpp"

namespace sonde::output {

struct FieldPlace {
  size_t offset = 0, length = 0;
};

inline FieldPlace field_place(const tep_format_field& field, const uint8_t* raw, size_t size) {
  FieldPlace place{static_cast<size_t>(field.offset), static_cast<size_t>(field.size)};
  if ((field.flags & TEP_FIELD_IS_DYNAMIC) && place.offset + 4 <= size) {
    uint32_t location = load<uint32_t>(raw + place.offset);
    place.offset = location & 0xffff;
    place.length = location >> 16;
  }
  return place;
}

// The integer of `length` bytes at `at`, sign-extended when `is_signed` (perf's adjust_signedness).
inline uint64_t field_number(const uint8_t* raw, size_t size, size_t at, size_t length, bool is_signed) {
  if (at + length > size) return 0;
  uint64_t value = 0;
  switch (length) {
    case 1:
      value = raw[at];
      break;
    case 2:
      value = load<uint16_t>(raw + at);
      break;
    case 4:
      value = load<uint32_t>(raw + at);
      break;
    case 8:
      return load<uint64_t>(raw + at);
    default:
      return 0;
  }
  uint64_t sign = uint64_t{1} << (length * 8 - 1);
  return is_signed && (value & sign) ? value | ~((sign << 1) - 1) : value;
}

inline std::string_view field_string(const uint8_t* raw, size_t size, size_t at) {
  if (at >= size) return {};
  const char* text = reinterpret_cast<const char*>(raw + at);
  return {text, strnlen(text, size - at)};
}

// The task a sched_switch payload puts on the CPU (next_pid, next_comm cut to its field); false
// when the format has no such fields.
struct NextTask {
  int32_t pid = 0;
  std::string_view comm;
};
inline bool read_next_task(const tep_event& format, const uint8_t* raw, size_t size, NextTask& task) {
  tep_format_field* next_comm = tep_find_field(const_cast<tep_event*>(&format), "next_comm");
  tep_format_field* next_pid = tep_find_field(const_cast<tep_event*>(&format), "next_pid");
  if (next_comm == nullptr || next_pid == nullptr) return false;
  task.pid = static_cast<int32_t>(field_number(raw, size, static_cast<size_t>(next_pid->offset),
                                               static_cast<size_t>(next_pid->size), true));
  task.comm = field_string(raw, size, static_cast<size_t>(next_comm->offset));
  if (task.comm.size() > static_cast<size_t>(next_comm->size))
    task.comm = task.comm.substr(0, next_comm->size);
  return true;
}

}  // namespace sonde::output
