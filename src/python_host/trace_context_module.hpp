#pragma once
// perf's built-in module perf_trace_context: the functions a script calls with its handler's
// `context` (or perf_script_context) to ask about the sample being handled — common_pc,
// common_flags, common_lock_depth, perf_sample_insn, perf_sample_srcline, perf_sample_srccode,
// perf_set_itrace_options.
#include "output/python/script_engine.hpp"
#include "python_host/py_ref.hpp"

namespace sonde::python_host {

// The sample the handlers are called for; the module's functions read it.
struct CurrentSample {
  const output::python::SampleFacts* facts = nullptr;
  output::python::SampleDetails* details = nullptr;
};

// Registers the module; call before the interpreter starts.
bool register_trace_context_module();
// The context capsule: set as perf_script_context in the module and in `globals` (perf does
// this just before trace_begin). A borrowed reference, valid while the interpreter runs.
PyObject* publish_script_context(PyObject* globals, CurrentSample* current);

}  // namespace sonde::python_host
