#pragma once
// sonde trace: perf trace's live system-call tracing, done by the in-kernel BPF tracer. Calls
// print as perf trace prints them (to stderr, or -o); summaries come from the tracer's maps.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::pipeline {

struct TraceRunOptions {
  std::vector<std::string> command;
  std::vector<pid_t> pids;  // -p
  std::vector<pid_t> tids;  // -t
  bool system_wide = false;
  std::vector<int> cpus;  // -C
  std::optional<uid_t> uid;
  std::vector<std::string> event_lists;  // -e/--expr
  bool trace_syscalls = true;            // --no-syscalls turns them off
  std::vector<pid_t> filter_pids;
  bool inherit = true;
  bool summary_only = false;    // -s
  bool with_summary = false;    // -S
  bool strace_summary = false;  // -c
  bool errno_summary = false;
  std::string sort;
  double min_duration_ms = 0;  // --duration
  bool failures_only = false;
  bool absolute_time = false;  // -T
  std::optional<bool> show_comm;
  std::optional<uint64_t> max_events;
  int delay_ms = 0;  // -D
  std::string output_path;
  std::string input_path;          // -i: replay a recording instead of tracing live
  size_t ring_pages = 0;           // -m; 0: sonde's default
  bool user_callchains = false;    // --call-graph fp
  bool dwarf_callchains = false;   // --call-graph dwarf (with user_callchains)
  bool kernel_callchains = false;  // --kernel-syscall-graph
  unsigned max_stack = 127;        // --max-stack
  std::string page_faults;         // --pf: "maj", "min", "all" or "" for none
};

// Traces until the command ends, the -p/-t targets are gone, --max-events or a stop signal;
// the exit status (0 as perf trace's, whatever the command's).
Result<int> run_trace(const TraceRunOptions& options, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
