#pragma once
// A tracepoint's payload as perf's Python handlers receive it: each field of the event's format
// as a Python value (perf's conversions, quirks included), and the define_flag_* and
// define_symbolic_* calls perf makes from the event's print fmt before its first sample.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "python_host/py_ref.hpp"

struct tep_event;
struct tep_print_arg;

namespace sonde::python_host {

class TracepointValues {
 public:
  explicit TracepointValues(const tep_event* event);

  // "sys__name": the handler's name, as a str and as text.
  PyObject* handler_key() const { return handler_key_.get(); }
  const std::string& handler_name() const { return handler_name_; }
  size_t field_count() const { return fields_.size(); }
  PyObject* field_name(size_t index) const { return fields_[index].name.get(); }
  // Field `index` of a payload as a new reference; nullptr with a Python error set.
  PyObject* value(size_t index, std::span<const uint8_t> raw);
  // A common field's value as perf reads it (common_pid, common_flags, ...), 0 when absent.
  static int64_t common_field(const tep_event* event, const char* name, std::span<const uint8_t> raw);
  // The payload's common_pid (its place looked up once).
  int32_t common_pid(std::span<const uint8_t> raw) const;

  bool symbols_defined = false;  // define_symbols has run for this event

 private:
  struct Field {
    PyRef name;
    int offset = 0, size = 0;
    unsigned long flags = 0;  // TEP_FIELD_IS_*; a string array that did not print loses IS_STRING
  };
  std::string handler_name_;
  PyRef handler_key_;
  int pid_offset_ = -1, pid_size_ = 0;
  std::vector<Field> fields_;
};

// perf's define_event_symbols: walks the event's print fmt in order and calls the script's
// define_flag_field/value and define_symbolic_field/value (where `globals` has them) for each
// __print_flags and __print_symbolic, and define_flag_value(.., 0, atom) for every literal on
// the way, as perf does. `last_field` is perf's: the field named last, across events.
// Returns false with a Python error set when a call raised.
bool define_symbols(PyObject* globals, const std::string& handler_name, const tep_print_arg* args,
                    std::string& last_field);

}  // namespace sonde::python_host
