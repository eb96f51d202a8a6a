#pragma once
// The text of a live trace: each call the BPF tracer copied out, turned into perf trace's line,
// with the processes' fd paths and comms learnt along the way.
#include <cstdint>
#include <optional>
#include <string>

#include "analysis/trace/syscall_catalogue.hpp"
#include "analysis/trace/traced_processes.hpp"
#include "kernel/syscall_tracer.hpp"
#include "output/trace/tracepoint_text.hpp"

namespace sonde::output {

struct TraceTextOptions {
  bool absolute_time = false;  // -T
  bool show_thread = true;     // perf leaves out comm/tid when tracing one thread
  bool show_comm = true;       // --no-comm
  bool live = true;            // false when replaying a recording: /proc says nothing of it
  bool syscalls = true;        // tracepoint lines keep the duration column when syscalls print too
};

class TraceEventText {
 public:
  TraceEventText(analysis::SyscallCatalogue& catalogue, TraceTextOptions options)
      : catalogue_(catalogue), options_(options), processes_(options.live) {}

  // Appends the event's line.
  void append(std::string& out, const kernel::SyscallTraceEvent& event, size_t size);
  // Appends a tracepoint's line (its format learnt with tracepoints().add_format first).
  void append(std::string& out, const kernel::TracepointTraceEvent& event);
  TracepointText& tracepoints() { return tracepoints_; }
  analysis::TracedProcesses& processes() { return processes_; }

 private:
  analysis::SyscallCatalogue& catalogue_;
  TraceTextOptions options_;
  analysis::TracedProcesses processes_;
  TracepointText tracepoints_;
  std::optional<uint64_t> base_ns_;

  double relative_ms(uint64_t stamp);
};

}  // namespace sonde::output
