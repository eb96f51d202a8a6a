#pragma once
// sonde data convert: a perf.data file written in another tool's format: perf's JSON and CTF
// (--to-json), byte for byte as perf 6.1 writes it, pprof's profile (--to-pprof) and speedscope's
// file format (--to-speedscope), the Chrome trace event format (--to-chrome) and the
// Firefox Profiler's Gecko format (--to-firefox).
#include <cstdint>
#include <string>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "output/script/script_symbols.hpp"

namespace sonde::pipeline {

struct DataConvertOptions {
  std::string input = "perf.data";  // "-" reads a pipe
  std::string json_path;            // --to-json
  std::string pprof_path;           // --to-pprof
  std::string speedscope_path;      // --to-speedscope
  std::string ctf_directory;        // --to-ctf
  std::string chrome_path;          // --to-chrome
  std::string firefox_path;         // --to-firefox
  bool force = false;               // -f: an existing output is replaced
  bool all = false;                 // --all (CTF): side-band records too
  bool tod = false;                 // --tod (CTF): wall-clock stamps
  output::ScriptSymbolOptions symbols;
};

struct DataConvertSummary {
  uint64_t samples = 0;
  uint64_t non_samples = 0;  // --all's side-band records
  uint64_t bytes = 0;
};

// The output is created only when the input opens, and removed again when the conversion fails.
Result<DataConvertSummary> convert_to_json(const DataConvertOptions& options, Diagnostics& diagnostics);
// pprof's profile.proto, gzip-compressed: samples aggregated by stack and thread.
Result<DataConvertSummary> convert_to_pprof(const DataConvertOptions& options, Diagnostics& diagnostics);
// CTF 1.8 as perf writes it (a directory: metadata and a stream per CPU). An existing directory
// must be empty unless -f.
Result<DataConvertSummary> convert_to_ctf(const DataConvertOptions& options, Diagnostics& diagnostics);
// The Chrome trace event format: per-thread flame charts of the samples, tracepoints as instant
// events, sched_switch as per-CPU slices (Perfetto UI, chrome://tracing, speedscope).
Result<DataConvertSummary> convert_to_chrome(const DataConvertOptions& options, Diagnostics& diagnostics);
// speedscope's JSON file format: a sampled profile per thread and event.
Result<DataConvertSummary> convert_to_speedscope(const DataConvertOptions& options, Diagnostics& diagnostics);
// The Gecko profile format the Firefox Profiler imports: a thread per thread and event.
Result<DataConvertSummary> convert_to_firefox(const DataConvertOptions& options, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
