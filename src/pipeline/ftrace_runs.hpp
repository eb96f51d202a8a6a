#pragma once
// sonde ftrace's runs that join the tracing set-up (ftrace/) with what is made of it: a trace.dat
// (tracedat/), events printed live as trace-cmd report lines, a buffer statistics table (output/).
#include <cstdio>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "ftrace/record_run.hpp"
#include "ftrace/tracing_session.hpp"

namespace sonde::pipeline {

struct FtraceRecordOptions {
  ftrace::TracingRequest request;
  std::vector<std::string> command;  // traced while it runs; empty: until Ctrl-C
  std::string output = "trace.dat";  // its per-CPU page files are "<output>.cpuN" meanwhile
};

// Traces into options.output; the outcome says what was captured (ftrace::record_summary).
Result<ftrace::RecordOutcome> ftrace_record_to_trace_dat(const FtraceRecordOptions& options,
                                                         Diagnostics& diagnostics);

struct FtraceStreamOptions {
  ftrace::TracingRequest request;
  std::vector<std::string> command;
  bool nanoseconds = false;  // -t
};

// Prints each event on `out` as it comes; the command's exit status (0 without one).
Result<int> ftrace_stream_to(const FtraceStreamOptions& options, std::FILE* out, Diagnostics& diagnostics);

// sonde ftrace stat's table for the instance (the top level when `instance_name` is empty).
Result<std::string> ftrace_buffer_stats_table(const std::string& instance_name);

}  // namespace sonde::pipeline
