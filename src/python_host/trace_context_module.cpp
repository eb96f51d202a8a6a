#include "python_host/trace_context_module.hpp"

#include <traceevent/event-parse.h>

#include <fstream>
#include <string>

#include "python_host/tracepoint_values.hpp"

namespace sonde::python_host {

namespace {

// The sample behind a context argument; nullptr with TypeError set when it is not one.
CurrentSample* current_of(PyObject* args, const char* function) {
  PyObject* context = nullptr;
  if (!PyArg_UnpackTuple(args, function, 1, 2, &context)) return nullptr;
  void* pointer = PyCapsule_CheckExact(context) ? PyCapsule_GetPointer(context, nullptr) : nullptr;
  if (pointer == nullptr) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s: the first argument must be the handler's context", function);
  }
  return static_cast<CurrentSample*>(pointer);
}

PyObject* common_field(PyObject* args, const char* function, const char* field) {
  CurrentSample* current = current_of(args, function);
  if (current == nullptr) return nullptr;
  long value = 0;
  if (current->facts != nullptr && current->facts->tracepoint != nullptr)
    value = static_cast<long>(
        TracepointValues::common_field(current->facts->tracepoint, field, current->facts->raw));
  return PyLong_FromLong(value);
}

PyObject* common_pc(PyObject*, PyObject* args) {
  return common_field(args, "common_pc", "common_preempt_count");
}
PyObject* common_flags(PyObject*, PyObject* args) {
  return common_field(args, "common_flags", "common_flags");
}
PyObject* common_lock_depth(PyObject*, PyObject* args) {
  return common_field(args, "common_lock_depth", "common_lock_depth");
}

PyObject* perf_sample_insn(PyObject*, PyObject* args) {
  CurrentSample* current = current_of(args, "perf_sample_insn");
  if (current == nullptr) return nullptr;
  if (current->details == nullptr) Py_RETURN_NONE;
  std::string bytes = current->details->instruction_bytes();
  if (bytes.empty()) Py_RETURN_NONE;
  return PyBytes_FromStringAndSize(bytes.data(), static_cast<Py_ssize_t>(bytes.size()));
}

// sonde decodes no instruction traces: there are never itrace options to set (perf's -1).
PyObject* perf_set_itrace_options(PyObject*, PyObject* args) {
  PyObject* context = nullptr;
  PyObject* options = nullptr;
  if (!PyArg_UnpackTuple(args, "perf_set_itrace_options", 2, 2, &context, &options)) return nullptr;
  return PyLong_FromLong(-1);
}

PyObject* source_line_text(const std::string& file, unsigned line) {
  std::ifstream in(file);
  std::string text;
  for (unsigned number = 1; in && std::getline(in, text); ++number)
    if (number == line)
      return PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  Py_RETURN_NONE;
}

PyObject* srcline_tuple(PyObject* args, const char* function, bool with_text) {
  CurrentSample* current = current_of(args, function);
  if (current == nullptr) return nullptr;
  std::pair<std::string, unsigned> place;
  if (current->details != nullptr) place = current->details->srcline();
  PyRef file =
      place.first.empty() ? PyRef::borrowed(Py_None) : PyRef(PyUnicode_FromString(place.first.c_str()));
  if (!file) return nullptr;
  if (!with_text) return Py_BuildValue("(OI)", file.get(), place.second);
  PyRef text =
      place.first.empty() ? PyRef::borrowed(Py_None) : PyRef(source_line_text(place.first, place.second));
  if (!text) return nullptr;
  return Py_BuildValue("(OIO)", file.get(), place.second, text.get());
}

PyObject* perf_sample_srcline(PyObject*, PyObject* args) {
  return srcline_tuple(args, "perf_sample_srcline", false);
}
PyObject* perf_sample_srccode(PyObject*, PyObject* args) {
  return srcline_tuple(args, "perf_sample_srccode", true);
}

PyMethodDef kMethods[] = {
    {"common_pc", common_pc, METH_VARARGS, "the sample's preempt count (common_preempt_count)"},
    {"common_flags", common_flags, METH_VARARGS, "the sample's trace flags (common_flags)"},
    {"common_lock_depth", common_lock_depth, METH_VARARGS, "the sample's lock depth (0 on kernels without)"},
    {"perf_sample_insn", perf_sample_insn, METH_VARARGS, "the instruction bytes at the sample's ip, or None"},
    {"perf_set_itrace_options", perf_set_itrace_options, METH_VARARGS,
     "set instruction trace options (-1: sonde decodes no instruction traces)"},
    {"perf_sample_srcline", perf_sample_srcline, METH_VARARGS,
     "(source file or None, line) of the sample's ip"},
    {"perf_sample_srccode", perf_sample_srccode, METH_VARARGS,
     "(source file or None, line, the line's text or None) of the sample's ip"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT, "perf_trace_context", nullptr, -1, kMethods, nullptr, nullptr, nullptr, nullptr};

PyObject* create_module() {
  PyObject* module = PyModule_Create(&kModule);
  if (module == nullptr) return nullptr;
  // None until trace_begin, as perf has it.
  if (PyModule_AddObjectRef(module, "perf_script_context", Py_None) != 0) {
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}

}  // namespace

bool register_trace_context_module() {
  return PyImport_AppendInittab("perf_trace_context", create_module) == 0;
}

PyObject* publish_script_context(PyObject* globals, CurrentSample* current) {
  static PyObject* capsule = nullptr;
  if (capsule == nullptr) capsule = PyCapsule_New(current, nullptr, nullptr);
  if (capsule == nullptr) return nullptr;
  PyRef module(PyImport_ImportModule("perf_trace_context"));
  if (!module || PyObject_SetAttrString(module.get(), "perf_script_context", capsule) != 0 ||
      PyDict_SetItemString(globals, "perf_script_context", capsule) != 0)
    return nullptr;
  return capsule;
}

}  // namespace sonde::python_host
