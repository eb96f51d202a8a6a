#include "analysis/heatmap/tracepoint_field.hpp"

#include <traceevent/event-parse.h>

#include <cstring>

namespace sonde::analysis {

namespace {

const tep_format_field* find_in(const tep_format_field* field, std::string_view name) {
  for (; field != nullptr; field = field->next)
    if (field->name != nullptr && name == field->name) return field;
  return nullptr;
}

uint64_t hash_bytes(const uint8_t* data, size_t size) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a: equal bytes, equal keys
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 1099511628211ull;
  return hash;
}

}  // namespace

const tep_format_field* find_tracepoint_field(const tep_event* event, std::string_view name) {
  if (event == nullptr) return nullptr;
  if (const tep_format_field* field = find_in(event->format.fields, name)) return field;
  return find_in(event->format.common_fields, name);
}

TracepointNumber tracepoint_number(const tep_event* event, std::string_view name) {
  const tep_format_field* field = find_tracepoint_field(event, name);
  if (field == nullptr || field->offset < 0 || field->size <= 0 || field->size > 8 ||
      (field->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
    return {};
  return {static_cast<uint32_t>(field->offset), static_cast<uint32_t>(field->size),
          (field->flags & TEP_FIELD_IS_SIGNED) != 0};
}

std::string tracepoint_field_names(const tep_event* event) {
  std::string names;
  for (const tep_format_field* field = event->format.fields; field != nullptr; field = field->next) {
    if (!names.empty()) names += ", ";
    names += field->name;
  }
  return names;
}

std::optional<uint64_t> tracepoint_key_value(const tep_format_field& field, sonde::Bytes raw) {
  if (field.offset < 0 || field.size < 0) return std::nullopt;
  auto offset = static_cast<size_t>(field.offset), size = static_cast<size_t>(field.size);
  if (offset > raw.size() || raw.size() - offset < size) return std::nullopt;
  tep_handle* tep = field.event->tep;
  const uint8_t* at = raw.data() + offset;
  if (field.flags & TEP_FIELD_IS_DYNAMIC) {
    // __data_loc: length << 16 | offset (relative to the end of this field for __rel_loc).
    if (size != 4) return std::nullopt;
    auto loc = static_cast<uint32_t>(tep_read_number(tep, at, 4));
    size_t data_offset = loc & 0xffff, length = loc >> 16;
    if (field.flags & TEP_FIELD_IS_RELATIVE) data_offset += offset + size;
    if (data_offset > raw.size() || raw.size() - data_offset < length) return std::nullopt;
    at = raw.data() + data_offset;
    size = length;
  } else if (!(field.flags & TEP_FIELD_IS_ARRAY) && size <= 8 && size > 0) {
    uint64_t value = tep_read_number(tep, at, static_cast<int>(size));
    if ((field.flags & TEP_FIELD_IS_SIGNED) && size < 8) {
      unsigned shift = 64 - 8 * static_cast<unsigned>(size);
      value = static_cast<uint64_t>(static_cast<int64_t>(value << shift) >> shift);
    }
    return value;
  }
  if (field.flags & TEP_FIELD_IS_STRING) {
    if (const void* nul = std::memchr(at, '\0', size))
      size = static_cast<size_t>(static_cast<const uint8_t*>(nul) - at);
  }
  return hash_bytes(at, size);
}

}  // namespace sonde::analysis
