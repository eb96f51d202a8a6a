#include "output/trace/tracepoint_text.hpp"

#include <event-parse.h>
#include <fmt/format.h>

#include <cstring>
#include <string>

namespace sonde::output {

namespace {

bool is_pid_field(const tep_format_field& field) {
  std::string_view name = field.name;
  return name == "pid" || name.ends_with("_pid") || std::string_view(field.type) == "pid_t";
}

bool is_char_array(const tep_format_field& field) {
  return (field.flags & TEP_FIELD_IS_ARRAY) != 0 && std::string_view(field.type).starts_with("char");
}

// A string field's bytes in the record: a char array in place, or __data_loc's offset and length.
std::string_view string_of(const tep_format_field& field, const uint8_t* data, size_t size) {
  size_t offset = static_cast<size_t>(field.offset), length = static_cast<size_t>(field.size);
  if ((field.flags & TEP_FIELD_IS_DYNAMIC) != 0) {
    uint32_t location = 0;
    if (offset + 4 > size) return {};
    std::memcpy(&location, data + offset, 4);
    offset = location & 0xffff;
    length = location >> 16;
  }
  if (offset >= size) return {};
  length = std::min(length, size - offset);
  std::string_view text(reinterpret_cast<const char*>(data) + offset, length);
  return text.substr(0, text.find('\0'));
}

}  // namespace

TracepointText::TracepointText() : tep_(tep_alloc()) {}
TracepointText::~TracepointText() { tep_free(tep_); }

Result<void> TracepointText::add_format(std::string_view system, std::string_view format) {
  std::string system_name(system);
  if (tep_ == nullptr || tep_parse_event(tep_, format.data(), format.size(), system_name.c_str()) != 0)
    return failf("cannot parse the format of a {} tracepoint", system);
  return {};
}

void TracepointText::append(std::string& out, const TracepointLinePrefix& prefix,
                            const kernel::TracepointTraceEvent& event,
                            const std::function<std::string_view(pid_t)>& comm_of) const {
  const uint8_t* data = event.data;
  size_t size = event.size;
  uint16_t type = 0;
  if (size >= 2) std::memcpy(&type, data, 2);
  tep_event* format = tep_find_event(tep_, type);
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{:10.3f} ", prefix.time_ms);
  if (prefix.with_duration_column) out += "(         ): ";
  std::string_view comm(event.comm, strnlen(event.comm, sizeof event.comm));
  if (prefix.show_tid) {
    if (prefix.show_comm) fmt::format_to(it, "{}/", comm.substr(0, 14));
    fmt::format_to(it, "{} ", event.tid);
  }
  if (format == nullptr) {
    fmt::format_to(it, "tracepoint {}()\n", type);
    return;
  }
  fmt::format_to(it, "{}:{}(", format->system, format->name);
  bool first = true;
  for (tep_format_field* field = format->format.fields; field != nullptr; field = field->next) {
    std::string value;
    if (is_char_array(*field) || (field->flags & TEP_FIELD_IS_STRING) != 0) {
      value = fmt::format("\"{}\"", string_of(*field, data, size));
    } else if ((field->flags & TEP_FIELD_IS_ARRAY) != 0) {
      continue;  // perf prints the address of the copy it holds: nothing to learn from
    } else {
      unsigned long long number = 0;
      if (static_cast<size_t>(field->offset + field->size) > size ||
          tep_read_number_field(field, data, &number) != 0 || number == 0)
        continue;
      bool is_signed = (field->flags & TEP_FIELD_IS_SIGNED) != 0;
      long long signed_number = number;
      if (is_signed && field->size < 8) {
        unsigned shift = 64 - 8 * static_cast<unsigned>(field->size);
        signed_number = static_cast<long long>(number << shift) >> shift;
      }
      value = is_signed ? fmt::format("{}", signed_number) : fmt::format("{}", number);
      if (is_pid_field(*field) && comm_of) {
        std::string_view name = comm_of(static_cast<pid_t>(signed_number));
        if (!name.empty()) value += fmt::format(" ({})", name);
      }
    }
    fmt::format_to(it, "{}{}: {}", first ? "" : ", ", field->name, value);
    first = false;
  }
  out += ")\n";
}

}  // namespace sonde::output
