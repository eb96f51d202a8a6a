#pragma once
// script -s: the samples script's filters keep, handed to a Python script's handlers as perf's
// Python scripting hands them. The interpreter lives in the plugin sonde-python.so (see
// script_engine.hpp), loaded here, beside the sonde binary, when a script runs; this side works
// out what the handlers are given: places, symbols, callchains, registers.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "output/python/script_engine.hpp"
#include "output/script/script_printer.hpp"
#include "output/script/script_symbols.hpp"
#include "session/session.hpp"

namespace sonde::output::python {

struct PythonScriptOptions {
  std::string script;             // the path as given
  std::vector<std::string> args;  // the script's sys.argv[1:]
  unsigned max_stack = 127;       // callchain entries handed over, at most
  bool use_callchain = true;      // -G: no callchains for the handlers
};

class PythonScriptSink final : public ScriptSampleSink {
 public:
  // Loads the plugin and starts the interpreter (the script does not run yet).
  static Result<std::unique_ptr<PythonScriptSink>> load(const PythonScriptOptions& options,
                                                        session::Session& session, ScriptSymbols& symbols);
  ~PythonScriptSink() override;

  // Runs the script's top level and its trace_begin(); the status to exit with when the script
  // ended the run there.
  std::optional<int> begin();
  bool on_sample(const session::SampleEvent& sample, std::string_view event_name,
                 const tep_event* tracepoint) override;
  // trace_end() once every sample is in (unless the script ended the run before); the run's
  // exit status.
  int end();

  struct Details;

 private:
  PythonScriptSink(std::unique_ptr<ScriptEngine> engine, std::unique_ptr<Details> details);

  std::unique_ptr<ScriptEngine> engine_;
  std::unique_ptr<Details> details_;
  std::optional<int> status_;  // set when the script ended the run
  bool use_callchain_ = true;
  std::vector<ReadValue> read_values_;  // the sample's, reused
};

// $PERF_EXEC_PATH for scripts: sonde's own helper modules (Core.py, Util.py) and scripts,
// installed beside the binary or in the source tree it was built from.
std::string script_exec_path();

}  // namespace sonde::output::python
