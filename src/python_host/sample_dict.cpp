#include "python_host/sample_dict.hpp"

#include <linux/perf_event.h>

#include <bit>
#include <cstddef>
#include <cstring>

namespace sonde::python_host {

namespace {

using output::python::CallchainFrame;
using output::python::PlaceFacts;
using output::python::SampleDetails;
using output::python::SampleFacts;

// Sets dict[key] to `value`, taking the reference; false when the value or the set failed.
bool put(PyObject* dict, const char* key, PyObject* value) {
  PyRef owned(value);
  return owned && PyDict_SetItemString(dict, key, owned.get()) == 0;
}

PyObject* text(std::string_view value) {
  return PyUnicode_DecodeUTF8(value.data(), static_cast<Py_ssize_t>(value.size()), "surrogateescape");
}

PyObject* number(uint64_t value) { return PyLong_FromUnsignedLongLong(value); }

// perf's set_sym_in_dict: the map's DSO facts, then the symbol's.
bool put_place(PyObject* dict, const PlaceFacts& place, const char* dso, const char* build_id,
               const char* start, const char* end, const char* symbol, const char* offset) {
  if (place.has_map && (!put(dict, dso, text(place.dso)) || !put(dict, build_id, text(place.dso_build_id)) ||
                        !put(dict, start, number(place.map_start)) || !put(dict, end, number(place.map_end))))
    return false;
  if (place.has_symbol &&
      (!put(dict, symbol, text(place.symbol)) || !put(dict, offset, number(place.symbol_offset))))
    return false;
  return true;
}

PyObject* read_values(const SampleFacts& facts) {
  const size_t count = facts.values.empty() ? 1 : facts.values.size();
  PyRef list(PyList_New(static_cast<Py_ssize_t>(count)));
  if (!list) return nullptr;
  for (size_t i = 0; i < count; ++i) {
    output::python::ReadValue value = facts.values.empty() ? output::python::ReadValue{} : facts.values[i];
    PyObject* tuple = Py_BuildValue("(KKK)", static_cast<unsigned long long>(value.id),
                                    static_cast<unsigned long long>(value.value),
                                    static_cast<unsigned long long>(value.lost));
    if (tuple == nullptr) return nullptr;
    PyList_SET_ITEM(list.get(), static_cast<Py_ssize_t>(i), tuple);
  }
  return list.release();
}

PyObject* frame_dict(const CallchainFrame& frame) {
  PyRef dict(PyDict_New());
  if (!dict || !put(dict.get(), "ip", number(frame.ip))) return nullptr;
  if (frame.has_symbol) {
    PyRef symbol(PyDict_New());
    if (!symbol || !put(symbol.get(), "start", number(frame.symbol_start)) ||
        !put(symbol.get(), "end", number(frame.symbol_end)) ||
        !put(symbol.get(), "binding", PyLong_FromLong(frame.binding)) ||
        !put(symbol.get(), "name", text(frame.symbol)) || !put(dict.get(), "sym", symbol.release()))
      return nullptr;
    if (frame.has_map && !put(dict.get(), "sym_off", number(frame.symbol_offset))) return nullptr;
  }
  if (frame.has_map && !put(dict.get(), "dso", text(frame.dso))) return nullptr;
  return dict.release();
}

// perf's regs_map text is cut to the buffer it sizes by the interrupt registers' mask, for the
// user registers too: without interrupt registers, uregs is empty.
PyObject* registers(std::string_view registers_text, uint64_t intr_mask) {
  size_t room = static_cast<size_t>(std::popcount(intr_mask)) * 28;
  if (room == 0) return text("");
  return text(registers_text.substr(0, room - 1));
}

}  // namespace

PyObject* callchain_list(const SampleFacts& facts, SampleDetails& details) {
  if (!facts.has_callchain) return PyList_New(0);
  std::span<const CallchainFrame> frames = details.callchain();
  PyRef list(PyList_New(static_cast<Py_ssize_t>(frames.size())));
  if (!list) return nullptr;
  for (size_t i = 0; i < frames.size(); ++i) {
    PyObject* frame = frame_dict(frames[i]);
    if (frame == nullptr) return nullptr;
    PyList_SET_ITEM(list.get(), static_cast<Py_ssize_t>(i), frame);
  }
  return list.release();
}

PyObject* sample_dict(const SampleFacts& facts, SampleDetails& details, PyObject* callchain) {
  PyRef dict(PyDict_New()), sample(PyDict_New());
  if (!dict || !sample) return nullptr;
  PyObject* d = dict.get();
  PyObject* s = sample.get();
  if (!put(d, "ev_name", text(facts.event_name)) ||
      !put(d, "attr",
           PyBytes_FromStringAndSize(reinterpret_cast<const char*>(facts.attr.data()),
                                     static_cast<Py_ssize_t>(facts.attr.size()))))
    return nullptr;
  if (!put(s, "pid", number(facts.pid)) || !put(s, "tid", number(facts.tid)) ||
      !put(s, "cpu", number(facts.cpu)) || !put(s, "ip", number(facts.ip)) ||
      !put(s, "time", number(facts.time)) || !put(s, "period", number(facts.period)) ||
      !put(s, "phys_addr", number(facts.phys_addr)) || !put(s, "addr", number(facts.addr)))
    return nullptr;
  if ((facts.read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) &&
      !put(s, "time_enabled", number(facts.time_enabled)))
    return nullptr;
  if ((facts.read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) &&
      !put(s, "time_running", number(facts.time_running)))
    return nullptr;
  if (!put(s, "values", read_values(facts)) || !put(s, "weight", number(facts.weight)) ||
      !put(s, "transaction", number(facts.transaction)) || !put(s, "datasrc", number(facts.data_src)) ||
      !put(s, "datasrc_decode", text(details.datasrc_decode())) || PyDict_SetItemString(d, "sample", s) != 0)
    return nullptr;
  if (!put(d, "raw_buf",
           PyBytes_FromStringAndSize(reinterpret_cast<const char*>(facts.raw.data()),
                                     static_cast<Py_ssize_t>(facts.raw.size()))) ||
      !put(d, "comm", text(facts.comm)))
    return nullptr;
  if (!put_place(d, details.place(), "dso", "dso_bid", "dso_map_start", "dso_map_end", "symbol", "symoff"))
    return nullptr;
  if (PyDict_SetItemString(d, "callchain", callchain) != 0 || !put(d, "brstack", PyList_New(0)) ||
      !put(d, "brstacksym", PyList_New(0)))
    return nullptr;
  if (!put(s, "cpumode", PyLong_FromLong(facts.cpumode))) return nullptr;
  if (const PlaceFacts* addr = details.addr_place()) {
    if (!put(s, "addr_correlates_sym", PyBool_FromLong(1)) ||
        !put_place(s, *addr, "addr_dso", "addr_dso_bid", "addr_dso_map_start", "addr_dso_map_end",
                   "addr_symbol", "addr_symoff"))
      return nullptr;
  }
  uint64_t intr_mask = 0;
  if (facts.attr.size() >= offsetof(perf_event_attr, sample_regs_intr) + sizeof(uint64_t))
    std::memcpy(&intr_mask, facts.attr.data() + offsetof(perf_event_attr, sample_regs_intr),
                sizeof intr_mask);
  if (!put(d, "iregs", registers(details.intr_registers(), intr_mask)) ||
      !put(d, "uregs", registers(details.user_registers(), intr_mask)))
    return nullptr;
  return dict.release();
}

}  // namespace sonde::python_host
