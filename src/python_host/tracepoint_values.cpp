#include "python_host/tracepoint_values.hpp"

#include <traceevent/event-parse.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

#include "base/bytes.hpp"

namespace sonde::python_host {

namespace {

// perf's is_printable_array, with the kernel's ctype perf builds with (Latin-1's upper half
// prints): NUL-terminated in its last byte, and printable or space up to its first NUL.
bool printable_array(const uint8_t* bytes, size_t length) {
  if (length == 0 || bytes[length - 1] != 0) return false;
  for (size_t i = 0; i + 1 < length && bytes[i] != 0; ++i) {
    uint8_t ch = bytes[i];
    bool print = (ch >= 0x20 && ch < 0x7f) || ch >= 0xa0;
    bool space = ch == ' ' || (ch >= '\t' && ch <= '\r');
    if (!print && !space) return false;
  }
  return true;
}

// perf's eval_flag: a number in C's notation, a few names of the kernel's enums, else 0.
long flag_value(const char* text) {
  if (text[0] >= '0' && text[0] <= '9') return static_cast<long>(std::strtoull(text, nullptr, 0));
  struct Known {
    std::string_view name;
    long value;
  };
  static constexpr Known kKnown[] = {
      {"HI_SOFTIRQ", 0},      {"TIMER_SOFTIRQ", 1},    {"NET_TX_SOFTIRQ", 2},    {"NET_RX_SOFTIRQ", 3},
      {"BLOCK_SOFTIRQ", 4},   {"IRQ_POLL_SOFTIRQ", 5}, {"TASKLET_SOFTIRQ", 6},   {"SCHED_SOFTIRQ", 7},
      {"HRTIMER_SOFTIRQ", 8}, {"RCU_SOFTIRQ", 9},      {"HRTIMER_NORESTART", 0}, {"HRTIMER_RESTART", 1},
  };
  for (const Known& known : kKnown)
    if (known.name == text) return known.value;
  return 0;
}

// Calls globals[name](*args) when the script defines it; false when the call raised.
bool call_if_defined(PyObject* globals, const char* name, PyRef args) {
  if (!args) return false;
  PyObject* function = PyDict_GetItemString(globals, name);
  if (function == nullptr || !PyCallable_Check(function)) return true;
  PyRef result(PyObject_Call(function, args.get(), nullptr));
  return static_cast<bool>(result);
}

PyObject* str_or_none(const char* text) {
  if (text == nullptr) Py_RETURN_NONE;
  return PyUnicode_FromString(text);
}

class SymbolWalk {
 public:
  SymbolWalk(PyObject* globals, const std::string& event, std::string& last_field)
      : globals_(globals), event_(event), last_field_(last_field) {}

  bool walk(const tep_print_arg* arg) {
    for (; arg != nullptr; arg = arg->next) {
      switch (arg->type) {
        case TEP_PRINT_NULL:
        case TEP_PRINT_STRING:
          break;
        case TEP_PRINT_ATOM:
          if (!define_value("define_flag_value", 0, arg->atom.atom)) return false;
          break;
        case TEP_PRINT_FIELD:
          last_field_ = arg->field.name;
          break;
        case TEP_PRINT_FLAGS:
          if (!walk(arg->flags.field)) return false;
          if (!call_if_defined(globals_, "define_flag_field",
                               PyRef(Py_BuildValue("(ssN)", event_.c_str(), last_field_.c_str(),
                                                   str_or_none(arg->flags.delim)))))
            return false;
          for (const tep_print_flag_sym* flag = arg->flags.flags; flag != nullptr; flag = flag->next)
            if (!define_value("define_flag_value", flag_value(flag->value), flag->str)) return false;
          break;
        case TEP_PRINT_SYMBOL:
          if (!walk(arg->symbol.field)) return false;
          if (!call_if_defined(globals_, "define_symbolic_field",
                               PyRef(Py_BuildValue("(ss)", event_.c_str(), last_field_.c_str()))))
            return false;
          for (const tep_print_flag_sym* symbol = arg->symbol.symbols; symbol != nullptr;
               symbol = symbol->next)
            if (!define_value("define_symbolic_value", flag_value(symbol->value), symbol->str)) return false;
          break;
        case TEP_PRINT_HEX:
        case TEP_PRINT_HEX_STR:
          if (!walk(arg->hex.field) || !walk(arg->hex.size)) return false;
          break;
        case TEP_PRINT_INT_ARRAY:
          if (!walk(arg->int_array.field) || !walk(arg->int_array.count) || !walk(arg->int_array.el_size))
            return false;
          break;
        case TEP_PRINT_TYPE:
          if (!walk(arg->typecast.item)) return false;
          break;
        case TEP_PRINT_OP:
          if (!walk(arg->op.left) || !walk(arg->op.right)) return false;
          break;
        default:
          // Dynamic arrays, functions, bitmasks: perf goes no further along this list.
          return true;
      }
    }
    return true;
  }

 private:
  bool define_value(const char* function, long value, const char* text) {
    return call_if_defined(
        globals_, function,
        PyRef(Py_BuildValue("(ssls)", event_.c_str(), last_field_.c_str(), value, text ? text : "")));
  }

  PyObject* globals_;
  const std::string& event_;
  std::string& last_field_;
};

}  // namespace

TracepointValues::TracepointValues(const tep_event* event) {
  handler_name_ = std::string(event->system) + "__" + event->name;
  handler_key_ = PyRef(PyUnicode_InternFromString(handler_name_.c_str()));
  if (const tep_format_field* pid = tep_find_common_field(const_cast<tep_event*>(event), "common_pid")) {
    pid_offset_ = pid->offset;
    pid_size_ = pid->size;
  }
  for (const tep_format_field* field = event->format.fields; field != nullptr; field = field->next)
    fields_.push_back(
        {PyRef(PyUnicode_InternFromString(field->name)), field->offset, field->size, field->flags});
}

PyObject* TracepointValues::value(size_t index, std::span<const uint8_t> raw) {
  Field& field = fields_[index];
  const size_t raw_size = raw.size();
  if (field.flags & TEP_FIELD_IS_ARRAY) {
    size_t offset = static_cast<size_t>(field.offset), length = static_cast<size_t>(field.size);
    if (field.flags & TEP_FIELD_IS_DYNAMIC) {
      uint64_t location = offset + 4 <= raw_size ? load_unsigned(raw.data() + offset, 4) : 0;
      length = location >> 16;
      offset = location & 0xffff;
      if (field.flags & TEP_FIELD_IS_RELATIVE) offset += static_cast<size_t>(field.offset + field.size);
    }
    // A payload cut short gives what it holds.
    if (offset > raw_size) offset = raw_size;
    if (length > raw_size - offset) length = raw_size - offset;
    const uint8_t* bytes = raw.data() + offset;
    if ((field.flags & TEP_FIELD_IS_STRING) && printable_array(bytes, length))
      return PyUnicode_DecodeUTF8(reinterpret_cast<const char*>(bytes),
                                  static_cast<Py_ssize_t>(std::strlen(reinterpret_cast<const char*>(bytes))),
                                  "surrogateescape");
    // perf then takes the field for bytes from this sample on.
    field.flags &= ~static_cast<unsigned long>(TEP_FIELD_IS_STRING);
    return PyByteArray_FromStringAndSize(reinterpret_cast<const char*>(bytes),
                                         static_cast<Py_ssize_t>(length));
  }
  uint64_t number = 0;
  if (field.offset >= 0 && static_cast<size_t>(field.offset) + static_cast<size_t>(field.size) <= raw_size)
    number = load_unsigned(raw.data() + field.offset, field.size);
  // Read zero-extended, as perf reads it: a narrower signed field is not sign-extended.
  if (field.flags & TEP_FIELD_IS_SIGNED) return PyLong_FromLong(static_cast<long>(number));
  if (number > static_cast<uint64_t>(LONG_MAX)) return PyLong_FromUnsignedLongLong(number);
  return PyLong_FromLong(static_cast<long>(number));
}

int32_t TracepointValues::common_pid(std::span<const uint8_t> raw) const {
  if (pid_offset_ < 0 || static_cast<size_t>(pid_offset_) + static_cast<size_t>(pid_size_) > raw.size())
    return 0;
  return static_cast<int32_t>(static_cast<uint32_t>(load_unsigned(raw.data() + pid_offset_, pid_size_)));
}

int64_t TracepointValues::common_field(const tep_event* event, const char* name,
                                       std::span<const uint8_t> raw) {
  const tep_format_field* field = tep_find_common_field(const_cast<tep_event*>(event), name);
  if (field == nullptr || field->offset < 0 ||
      static_cast<size_t>(field->offset) + static_cast<size_t>(field->size) > raw.size())
    return 0;
  uint64_t number = load_unsigned(raw.data() + field->offset, field->size);
  // perf hands these out as C ints.
  return static_cast<int32_t>(static_cast<uint32_t>(number));
}

bool define_symbols(PyObject* globals, const std::string& handler_name, const tep_print_arg* args,
                    std::string& last_field) {
  return SymbolWalk(globals, handler_name, last_field).walk(args);
}

}  // namespace sonde::python_host
