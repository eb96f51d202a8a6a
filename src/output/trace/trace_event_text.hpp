#pragma once
// The text of a live trace: each call the BPF tracer copied out, turned into perf trace's line,
// with the processes' fd paths and comms learnt along the way.
#include <cstdint>
#include <functional>
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
  unsigned max_stack = 127;    // --max-stack: callchain entries printed under a call
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
  // Names callchain entries ("symbol (dso)"); calls print their stacks once this is set.
  using FrameNamer = std::function<std::string(pid_t pid, pid_t tid, uint64_t address, bool kernel)>;
  void set_frame_namer(FrameNamer namer) { frame_namer_ = std::move(namer); }
  analysis::TracedProcesses& processes() { return processes_; }

 private:
  analysis::SyscallCatalogue& catalogue_;
  TraceTextOptions options_;
  analysis::TracedProcesses processes_;
  TracepointText tracepoints_;
  FrameNamer frame_namer_;
  std::optional<uint64_t> base_ns_;

  double relative_ms(uint64_t stamp);
  void append_callchain(std::string& out, const kernel::SyscallTraceEvent& event);
};

}  // namespace sonde::output
