#include "format/tep_payload.hpp"

#include <traceevent/event-parse.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace sonde::tracedat {
namespace {

uint64_t read_unsigned(const tep_format_field* field, const uint8_t* bytes) {
  uint64_t value = 0;
  std::memcpy(&value, bytes + field->offset, field->size < 8 ? static_cast<size_t>(field->size) : 8);
  return value;
}

// A __data_loc / __rel_loc field's place: offset and length, 16 bits each. libtraceevent reads
// the word at the field's size, as here.
void dynamic_place(const tep_format_field* field, const uint8_t* bytes, uint64_t& offset, uint64_t& length) {
  uint64_t place = read_unsigned(field, bytes);
  offset = place & 0xffff;
  length = (place >> 16) & 0xffff;
  if (field->flags & TEP_FIELD_IS_RELATIVE) offset += static_cast<uint64_t>(field->offset + field->size);
}

// The print arguments libtraceevent reads bytes for by a count it takes from the payload.
class ArgCheck {
 public:
  ArgCheck(const tep_event* event, const uint8_t* bytes, int size)
      : event_(event), bytes_(bytes), size_(size) {}

  bool holds(const tep_print_arg* arg, int depth = 0) const {
    if (!arg || depth > 32) return true;
    switch (arg->type) {
      case TEP_PRINT_OP:
        return holds(arg->op.left, depth + 1) && holds(arg->op.right, depth + 1);
      case TEP_PRINT_TYPE:
        return holds(arg->typecast.item, depth + 1);
      case TEP_PRINT_BITMASK:
      case TEP_PRINT_CPUMASK: {
        // An empty bitmask makes libtraceevent allocate ~3 GB (fuzzing): the kernel never writes one.
        const tep_format_field* field = named(arg->bitmask.bitmask);
        uint64_t offset = 0, length = 1;
        if (field && (field->flags & TEP_FIELD_IS_DYNAMIC)) dynamic_place(field, bytes_, offset, length);
        return length > 0;
      }
      case TEP_PRINT_HEX:
      case TEP_PRINT_HEX_STR:
        // __print_hex(array, REC->len): the length is the payload's word, not the array's.
        return fits(arg->hex.field, count(arg->hex.size), 1);
      case TEP_PRINT_INT_ARRAY: {
        uint64_t element = count(arg->int_array.el_size);
        return fits(arg->int_array.field, count(arg->int_array.count), element == kUnknown ? 8 : element);
      }
      default:
        return true;
    }
  }

 private:
  static constexpr uint64_t kUnknown = UINT64_MAX;

  const tep_format_field* named(const char* name) const {
    return name ? tep_find_field(const_cast<tep_event*>(event_), name) : nullptr;
  }

  // A count given as a field or a number; kUnknown for an expression (those in kernel formats
  // derive from __get_dynamic_array_len, bounded by the check of the dynamic fields).
  uint64_t count(const tep_print_arg* arg) const {
    if (!arg) return kUnknown;
    if (arg->type == TEP_PRINT_ATOM && arg->atom.atom) return std::strtoull(arg->atom.atom, nullptr, 0);
    if (arg->type == TEP_PRINT_FIELD) {
      const tep_format_field* field = arg->field.field ? arg->field.field : named(arg->field.name);
      if (field && !(field->flags & TEP_FIELD_IS_DYNAMIC)) return read_unsigned(field, bytes_);
    }
    return kUnknown;
  }

  // Whether `count` elements of `element` bytes from where `array` starts end in the record.
  bool fits(const tep_print_arg* array, uint64_t count, uint64_t element) const {
    if (!array || count == kUnknown) return true;
    uint64_t start = 0;
    if (array->type == TEP_PRINT_DYNAMIC_ARRAY && array->dynarray.field) {
      uint64_t length;
      dynamic_place(array->dynarray.field, bytes_, start, length);
    } else if (array->type == TEP_PRINT_FIELD) {
      const tep_format_field* field = array->field.field ? array->field.field : named(array->field.name);
      if (!field) return true;
      start = static_cast<uint64_t>(field->offset);
    } else {
      return true;
    }
    if (element != 0 && count > static_cast<uint64_t>(size_) / element) return false;
    return start + count * element <= static_cast<uint64_t>(size_);
  }

  const tep_event* event_;
  const uint8_t* bytes_;
  int size_;
};

}  // namespace

PayloadShape payload_shape(const tep_event* event) {
  PayloadShape shape;
  if (!event) return shape;
  for (const tep_format_field* list : {event->format.common_fields, event->format.fields}) {
    for (const tep_format_field* field = list; field; field = field->next) {
      if (field->offset < 0 || field->size < 0)
        shape.fixed_end = INT32_MAX;  // never fits
      else if (field->offset + field->size > shape.fixed_end)
        shape.fixed_end = field->offset + field->size;
      if (field->flags & TEP_FIELD_IS_DYNAMIC) shape.variable = true;
    }
  }
  for (const tep_print_arg* arg = event->print_fmt.args; arg && !shape.variable; arg = arg->next)
    shape.variable = arg->type != TEP_PRINT_ATOM && arg->type != TEP_PRINT_FIELD &&
                     arg->type != TEP_PRINT_STRING && arg->type != TEP_PRINT_BSTRING &&
                     arg->type != TEP_PRINT_FLAGS && arg->type != TEP_PRINT_SYMBOL;
  return shape;
}

bool payload_holds_fields(const tep_event* event, const PayloadShape& shape, const void* data, int size) {
  if (!event || size < shape.fixed_end) return false;
  return !shape.variable || payload_holds_fields(event, data, size);
}

bool payload_holds_fields(const tep_event* event, const void* data, int size) {
  if (!event || size < 0 || (size > 0 && !data)) return false;
  const auto* bytes = static_cast<const uint8_t*>(data);
  for (const tep_format_field* list : {event->format.common_fields, event->format.fields}) {
    for (const tep_format_field* field = list; field; field = field->next) {
      if (field->offset < 0 || field->size < 0 || field->offset + field->size > size) return false;
      if (!(field->flags & TEP_FIELD_IS_DYNAMIC)) continue;
      uint64_t offset, length;
      dynamic_place(field, bytes, offset, length);
      if (offset + length > static_cast<uint64_t>(size)) return false;
    }
  }
  ArgCheck check(event, bytes, size);
  for (const tep_print_arg* arg = event->print_fmt.args; arg; arg = arg->next)
    if (!check.holds(arg)) return false;
  return true;
}

}  // namespace sonde::tracedat
