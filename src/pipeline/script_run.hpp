#pragma once
// perf script: a perf.data file's events printed one per line (or dumped raw, -D), with the
// kernel's defaults read from /proc and the samples' callchains symbolized and unwound.
#include <optional>
#include <string>
#include <vector>

#include "analysis/script/script_filter.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "output/python/python_script_sink.hpp"
#include "output/script/script_printer.hpp"
#include "output/script/script_symbols.hpp"

namespace sonde::pipeline {

// The sample filters as the command line gives them (empty for none).
struct ScriptFilterSpec {
  std::string time;            // --time start,stop
  std::string cpus;            // -C
  std::string comms;           // --comm
  std::string pids;            // --pid
  std::string tids;            // --tid
  std::string dsos;            // --dsos
  std::string symbols;         // -S/--symbols
  uint64_t address_range = 0;  // --addr-range
};
// Usage errors name the option.
Result<analysis::ScriptFilter> parse_script_filter(const ScriptFilterSpec& spec);

// perf's default --max-stack: the kernel's kernel.perf_event_max_stack (127 when unreadable).
unsigned kernel_max_stack();

struct ScriptRunOptions {
  std::string input = "perf.data";  // "-" reads a pipe
  output::ScriptOptions script;
  output::ScriptSymbolOptions symbols;
  bool header = false;         // --header: the file's header before the events
  bool header_only = false;    // --header-only
  bool show_info = false;      // -I: the header's topology, caches and memory nodes in full
  bool dump_raw = false;       // -D
  bool dump_unsorted = false;  // --dump-unsorted-raw-trace: -D in file order
  bool itrace = false;         // --itrace: refused on a file with AUX area data, else nothing to do
  bool stitch_lbr = false;     // --stitch-lbr: a warning without LBR call stacks, as perf
  std::string progress_label;  // shown while reading, when stdout is not a terminal
  // The first of --call-trace, --call-ret-trace, --insn-trace, --xed, --graph-function given:
  // views of an instruction trace (AUX area data), refused for a file without one.
  std::string instruction_trace_option;
  std::string time_slices;          // --time as given: percent slices are resolved against the file
  std::string dlfilter;             // --dlfilter: the filter's name or path
  std::vector<std::string> dlargs;  // --dlarg, for its start()
  // -s: the samples go to this Python script's handlers instead of being printed.
  std::optional<output::python::PythonScriptOptions> python;
};

// --list-dlfilters: perf's listing of the filters in the current directory and perf's own.
std::string dlfilter_listing();

// Prints on stdout; the reader's warnings go to `diagnostics`. The exit status: 0, or what a
// Python script (-s) ended the run with.
Result<int> run_script(ScriptRunOptions options, Diagnostics& diagnostics);

// report -D: every record dumped as perf report dumps it (its handlers: READ read, THREAD_MAP and
// CPU_MAP not), then the records counted as --stats counts them, on stdout.
Result<void> dump_report_trace(const std::string& input, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
