#pragma once
// perf's perf_sample_dict and callchain lists: a sample's fields, place and callchain as the
// Python dicts perf hands its scripts, keys in perf's order (scripts print them as they are).
#include "output/python/script_engine.hpp"
#include "python_host/py_ref.hpp"

namespace sonde::python_host {

// The sample's callchain as a list of {'ip', 'sym', 'sym_off', 'dso'} dicts; [] without one.
// A new reference, nullptr with a Python error set.
PyObject* callchain_list(const output::python::SampleFacts& facts, output::python::SampleDetails& details);

// perf_sample_dict; `callchain` (a list from callchain_list) becomes its 'callchain'.
PyObject* sample_dict(const output::python::SampleFacts& facts, output::python::SampleDetails& details,
                      PyObject* callchain);

}  // namespace sonde::python_host
