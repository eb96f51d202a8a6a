// sonde-python.so: CPython embedded to run perf's Python scripts (sonde script -s). It calls the
// script's handlers as perf 6.1 calls them — trace_begin, sys__event(...) per tracepoint sample
// with the payload's fields, trace_unhandled, process_event(dict) for other samples, trace_end —
// and stops the run, with the traceback, at the first exception.
#include <limits.h>
#include <stdlib.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>

#include "output/python/script_engine.hpp"
#include "python_host/py_ref.hpp"
#include "python_host/sample_dict.hpp"
#include "python_host/trace_context_module.hpp"
#include "python_host/tracepoint_values.hpp"

namespace sonde::python_host {

namespace {

using output::python::SampleDetails;
using output::python::SampleFacts;
using output::python::ScriptEngineOptions;

constexpr uint64_t kNanosecondsPerSecond = 1000000000;

std::string directory_of(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string directory = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  char resolved[PATH_MAX];
  return ::realpath(directory.c_str(), resolved) != nullptr ? std::string(resolved) : directory;
}

class PythonEngine final : public output::python::ScriptEngine {
 public:
  explicit PythonEngine(const ScriptEngineOptions& options) : options_(options) {}
  ~PythonEngine() override { finalize(); }

  // Starts the interpreter with the script's sys.argv; an error's text when it cannot.
  std::optional<std::string> start();
  std::optional<int> begin() override;
  std::optional<int> sample(const SampleFacts& facts, SampleDetails& details) override;
  std::optional<int> end() override;

 private:
  std::optional<int> tracepoint(const SampleFacts& facts, SampleDetails& details);
  std::optional<int> general(const SampleFacts& facts, SampleDetails& details);
  // The script's global `key` when it is callable (perf's get_handler), else nullptr.
  PyObject* handler(PyObject* key) const;
  // Calls `function` with `args`; the status to end with when it raised.
  std::optional<int> call(PyObject* function, PyObject* args, const std::string& what);
  // What a raised exception makes of the run: SystemExit's status, or 1 after the traceback.
  int ended_by_exception(const std::string& what);
  // perf passes perf_sample_dict only to handlers whose code takes exactly one more argument.
  long argument_count(PyObject* function);
  PyObject* comm_object(std::string_view comm);
  TracepointValues& values_of(const tep_event* event);
  void finalize();

  ScriptEngineOptions options_;
  bool started_ = false, finalized_ = false;
  PyObject* globals_ = nullptr;  // __main__'s dict, borrowed
  PyObject* context_ = nullptr;  // the context capsule, borrowed
  CurrentSample current_;
  PyRef trace_begin_key_, trace_end_key_, trace_unhandled_key_, process_event_key_;
  std::unordered_map<const tep_event*, std::unique_ptr<TracepointValues>> events_;
  std::unordered_map<PyObject*, std::pair<PyRef, long>> argument_counts_;
  std::unordered_map<std::string, PyRef> comms_;
  const std::pair<const std::string, PyRef>* last_comm_ = nullptr;
  std::pair<const tep_event*, TracepointValues*> last_event_{nullptr, nullptr};
  std::pair<PyObject*, long> last_counted_{nullptr, 0};  // held by argument_counts_
  std::string last_field_;  // perf's define_* walk remembers the last field across events
};

std::optional<std::string> PythonEngine::start() {
  if (!register_trace_context_module()) return "cannot register the perf_trace_context module";
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.parse_argv = 0;
  // SIGINT stays sonde's (the run stops and trace_end prints the summary, as perf's scripts
  // promise: "Press control+C to stop and show the summary"); SIGPIPE stays the default.
  config.install_signal_handlers = 0;
  // The prefix from the system's Python, not from whichever python3 comes first in PATH.
  char executable[PATH_MAX];
  ssize_t length = ::readlink("/proc/self/exe", executable, sizeof executable - 1);
  if (length > 0) {
    executable[length] = '\0';
    PyConfig_SetBytesString(&config, &config.program_name, executable);
  }
  std::vector<std::string> words{options_.script};
  words.insert(words.end(), options_.args.begin(), options_.args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  PyStatus status = PyConfig_SetBytesArgv(&config, static_cast<Py_ssize_t>(argv.size()), argv.data());
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status))
    return std::string("cannot start Python: ") +
           (status.err_msg != nullptr ? status.err_msg : "unknown error");
  started_ = true;
  PyObject* main_module = PyImport_AddModule("__main__");
  if (main_module == nullptr) return "cannot create Python's __main__ module";
  globals_ = PyModule_GetDict(main_module);
  trace_begin_key_ = PyRef(PyUnicode_InternFromString("trace_begin"));
  trace_end_key_ = PyRef(PyUnicode_InternFromString("trace_end"));
  trace_unhandled_key_ = PyRef(PyUnicode_InternFromString("trace_unhandled"));
  process_event_key_ = PyRef(PyUnicode_InternFromString("process_event"));
  // sys.path[0]: the script's directory, as Python gives a script it runs.
  PyObject* path = PySys_GetObject("path");
  PyRef directory(PyUnicode_DecodeFSDefault(directory_of(options_.script).c_str()));
  if (path == nullptr || !directory || PyList_Insert(path, 0, directory.get()) != 0)
    return "cannot set Python's sys.path";
  return std::nullopt;
}

std::optional<int> PythonEngine::begin() {
  std::ifstream in(options_.script, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "sonde script: cannot open the Python script %s: %s\n", options_.script.c_str(),
                 std::strerror(errno));
    return 1;
  }
  std::ostringstream source;
  source << in.rdbuf();
  PyRef file(PyUnicode_DecodeFSDefault(options_.script.c_str()));
  if (!file || PyDict_SetItemString(globals_, "__file__", file.get()) != 0)
    return ended_by_exception("the script's loading");
  PyRef code(
      Py_CompileStringExFlags(source.str().c_str(), options_.script.c_str(), Py_file_input, nullptr, -1));
  if (!code) return ended_by_exception("the script's loading");
  PyRef result(PyEval_EvalCode(code.get(), globals_, globals_));
  if (!result) return ended_by_exception("the script's top level");
  context_ = publish_script_context(globals_, &current_);
  if (context_ == nullptr) return ended_by_exception("perf_script_context");
  if (PyObject* function = handler(trace_begin_key_.get())) {
    PyRef no_args(PyTuple_New(0));
    return call(function, no_args.get(), "trace_begin");
  }
  return std::nullopt;
}

std::optional<int> PythonEngine::sample(const SampleFacts& facts, SampleDetails& details) {
  current_ = {&facts, &details};
  std::optional<int> status =
      facts.tracepoint != nullptr ? tracepoint(facts, details) : general(facts, details);
  current_ = {};
  return status;
}

std::optional<int> PythonEngine::end() {
  std::optional<int> status;
  if (PyObject* function = handler(trace_end_key_.get())) {
    PyRef no_args(PyTuple_New(0));
    status = call(function, no_args.get(), "trace_end");
  }
  finalize();
  return status;
}

void PythonEngine::finalize() {
  if (!started_ || finalized_) return;
  finalized_ = true;
  last_event_ = {nullptr, nullptr};
  last_comm_ = nullptr;
  last_counted_ = {nullptr, 0};
  events_.clear();
  argument_counts_.clear();
  comms_.clear();
  trace_begin_key_ = trace_end_key_ = trace_unhandled_key_ = process_event_key_ = PyRef();
  Py_FinalizeEx();  // flushes the script's output; a closed pipe is no error here
}

PyObject* PythonEngine::handler(PyObject* key) const {
  PyObject* function = PyDict_GetItemWithError(globals_, key);
  if (function == nullptr || !PyCallable_Check(function)) {
    PyErr_Clear();
    return nullptr;
  }
  return function;
}

std::optional<int> PythonEngine::call(PyObject* function, PyObject* args, const std::string& what) {
  // Held for the call: a handler may rebind its own global name while it runs.
  PyRef held = PyRef::borrowed(function);
  PyRef result(PyObject_Call(held.get(), args, nullptr));
  if (result) return std::nullopt;
  return ended_by_exception(what);
}

int PythonEngine::ended_by_exception(const std::string& what) {
  if (PyErr_ExceptionMatches(PyExc_SystemExit)) {
    PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    PyRef owned_type(type), owned_value(value), owned_traceback(traceback);
    PyRef code(value != nullptr ? PyObject_GetAttrString(value, "code") : nullptr);
    PyErr_Clear();
    if (!code || code.get() == Py_None) return 0;
    if (PyLong_Check(code.get())) return static_cast<int>(PyLong_AsLong(code.get()));
    PyRef text(PyObject_Str(code.get()));
    const char* message = text ? PyUnicode_AsUTF8(text.get()) : nullptr;
    PyErr_Clear();
    PyRef flushed(PyObject_CallMethod(PySys_GetObject("stdout"), "flush", nullptr));
    PyErr_Clear();
    std::fprintf(stderr, "%s\n", message != nullptr ? message : "");
    return 1;
  }
  PyErr_Print();
  std::fprintf(stderr, "sonde script: the Python script %s failed in %s (the traceback above); stopping\n",
               options_.script.c_str(), what.c_str());
  return 1;
}

long PythonEngine::argument_count(PyObject* function) {
  if (function == last_counted_.first) return last_counted_.second;
  auto found = argument_counts_.find(function);
  if (found != argument_counts_.end()) {
    last_counted_ = {function, found->second.second};
    return found->second.second;
  }
  long count = 0;
  PyRef code(PyObject_GetAttrString(function, "__code__"));
  if (code) {
    PyRef argcount(PyObject_GetAttrString(code.get(), "co_argcount"));
    if (argcount) count = PyLong_AsLong(argcount.get());
  }
  PyErr_Clear();
  argument_counts_.emplace(function, std::pair{PyRef::borrowed(function), count});
  last_counted_ = {function, count};
  return count;
}

PyObject* PythonEngine::comm_object(std::string_view comm) {
  // Samples come in runs of one thread's.
  if (last_comm_ != nullptr && last_comm_->first == comm) {
    Py_INCREF(last_comm_->second.get());
    return last_comm_->second.get();
  }
  auto found = comms_.find(std::string(comm));
  if (found == comms_.end()) {
    PyRef text(PyUnicode_DecodeUTF8(comm.data(), static_cast<Py_ssize_t>(comm.size()), "surrogateescape"));
    if (!text) return nullptr;
    found = comms_.emplace(std::string(comm), std::move(text)).first;
  }
  last_comm_ = &*found;
  PyObject* object = found->second.get();
  Py_INCREF(object);
  return object;
}

TracepointValues& PythonEngine::values_of(const tep_event* event) {
  if (last_event_.first == event) return *last_event_.second;
  auto& values = events_[event];
  if (!values) values = std::make_unique<TracepointValues>(event);
  last_event_ = {event, values.get()};
  return *values;
}

std::optional<int> PythonEngine::tracepoint(const SampleFacts& facts, SampleDetails& details) {
  TracepointValues& values = values_of(facts.tracepoint);
  if (!values.symbols_defined) {
    values.symbols_defined = true;
    if (!define_symbols(globals_, values.handler_name(), facts.tracepoint->print_fmt.args, last_field_))
      return ended_by_exception("define_flag_value/define_symbolic_value of " + values.handler_name());
  }
  PyObject* function = handler(values.handler_key());
  const bool unhandled = function == nullptr;
  if (unhandled) function = handler(trace_unhandled_key_.get());
  if (function == nullptr) return std::nullopt;

  PyRef callchain(callchain_list(facts, details));
  if (!callchain) return ended_by_exception("the callchain of " + values.handler_name());
  const uint64_t secs = facts.time / kNanosecondsPerSecond;
  const uint64_t nsecs = facts.time - secs * kNanosecondsPerSecond;
  const long pid = values.common_pid(facts.raw);
  const size_t fields = values.field_count();
  const size_t count = unhandled ? 3 : 8 + fields;
  const bool with_dict = argument_count(function) == static_cast<long>(count) + 1;
  PyRef args(PyTuple_New(static_cast<Py_ssize_t>(count + (with_dict ? 1 : 0))));
  if (!args) return ended_by_exception(values.handler_name());
  bool filled = true;
  auto fill = [&](size_t index, PyObject* value) {
    if (value == nullptr) filled = false;
    if (filled) PyTuple_SET_ITEM(args.get(), static_cast<Py_ssize_t>(index), value);
  };
  Py_INCREF(values.handler_key());
  fill(0, values.handler_key());
  Py_INCREF(context_);
  fill(1, context_);
  if (!unhandled) {
    fill(2, PyLong_FromLong(static_cast<int>(facts.cpu)));
    fill(3, PyLong_FromUnsignedLongLong(secs));
    fill(4, PyLong_FromUnsignedLongLong(nsecs));
    fill(5, PyLong_FromLong(pid));
    fill(6, comm_object(facts.comm));
    fill(7, PyRef(callchain).release());
    for (size_t i = 0; i < fields && filled; ++i) fill(8 + i, values.value(i, facts.raw));
  } else {
    PyRef dict(PyDict_New());
    auto put = [&](PyObject* key, PyObject* value) {
      PyRef owned(value);
      if (!owned || !dict || PyDict_SetItem(dict.get(), key, owned.get()) != 0) filled = false;
    };
    auto put_named = [&](const char* key, PyObject* value) {
      PyRef name(PyUnicode_InternFromString(key));
      if (name) put(name.get(), value);
    };
    put_named("common_cpu", PyLong_FromLong(static_cast<int>(facts.cpu)));
    put_named("common_s", PyLong_FromUnsignedLongLong(secs));
    put_named("common_ns", PyLong_FromUnsignedLongLong(nsecs));
    put_named("common_pid", PyLong_FromLong(pid));
    put_named("common_comm", comm_object(facts.comm));
    put_named("common_callchain", PyRef(callchain).release());
    for (size_t i = 0; i < fields && filled; ++i) put(values.field_name(i), values.value(i, facts.raw));
    fill(2, dict.release());
  }
  if (with_dict && filled) fill(count, sample_dict(facts, details, callchain.get()));
  if (!filled) return ended_by_exception("the arguments of " + values.handler_name());
  return call(function, args.get(), unhandled ? "trace_unhandled" : values.handler_name());
}

std::optional<int> PythonEngine::general(const SampleFacts& facts, SampleDetails& details) {
  PyObject* function = handler(process_event_key_.get());
  if (function == nullptr) return std::nullopt;
  PyRef callchain(callchain_list(facts, details));
  PyRef dict(callchain ? sample_dict(facts, details, callchain.get()) : nullptr);
  if (!dict) return ended_by_exception("perf_sample_dict");
  PyRef args(PyTuple_Pack(1, dict.get()));
  if (!args) return ended_by_exception("process_event");
  return call(function, args.get(), "process_event");
}

}  // namespace

}  // namespace sonde::python_host

extern "C" __attribute__((visibility("default"))) sonde::output::python::ScriptEngine*
sonde_create_python_engine(const sonde::output::python::ScriptEngineOptions& options, std::string& error) {
  auto engine = std::make_unique<sonde::python_host::PythonEngine>(options);
  if (auto failed = engine->start()) {
    error = *failed;
    return nullptr;
  }
  return engine.release();
}
