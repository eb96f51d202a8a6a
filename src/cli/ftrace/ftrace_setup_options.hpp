#pragma once
// The set-up options `sonde ftrace record` and `stream` share, with trace-cmd's meanings and
// order: each -f filter and -R trigger belongs to the -e before it.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "ftrace/tracing_session.hpp"

namespace sonde::cli {

struct FtraceSetupOptions {
  ftrace::TracingRequest request;
  std::vector<std::string> pid_lists;
  std::optional<Error> error;  // the first ordering error (-f before any -e), reported after parsing
};

void add_ftrace_setup_options(CLI::App& app, FtraceSetupOptions& options, const std::string& command_name);
// Checks what CLI11 cannot (pid lists); call after parsing.
Result<void> finish_ftrace_setup_options(FtraceSetupOptions& options);

// Where record's and stream's notes go: one "sonde ftrace: ..." line each on stderr.
Diagnostics ftrace_diagnostics();

}  // namespace sonde::cli
