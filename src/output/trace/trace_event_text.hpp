#pragma once
// The text of a live trace: each call the BPF tracer copied out, turned into perf trace's line,
// with the processes' fd paths and comms learnt along the way.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/trace/syscall_catalogue.hpp"
#include "analysis/trace/traced_processes.hpp"
#include "kernel/syscall_tracer.hpp"
#include "output/trace/syscall_line.hpp"
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
      : catalogue_(catalogue), options_(options), processes_(options.live) {
    context_.fd_path = [this](pid_t owner, int fd) { return processes_.fd_path(owner, fd); };
    context_.comm_of = [this](pid_t thread) { return processes_.comm(thread); };
  }
  TraceEventText(const TraceEventText&) = delete;  // context_ points into this object
  TraceEventText& operator=(const TraceEventText&) = delete;

  // Appends the event's line.
  void append(std::string& out, const kernel::SyscallTraceEvent& event, size_t size);
  // Appends a tracepoint's line (its format learnt with tracepoints().add_format first).
  void append(std::string& out, const kernel::TracepointTraceEvent& event);
  TracepointText& tracepoints() { return tracepoints_; }
  // Times count from this stamp (perf's first event), if it comes before the first line.
  void start_clock(uint64_t stamp) {
    if (!base_ns_) base_ns_ = stamp;
  }
  // A call with its user registers and stack (--call-graph dwarf): the stack unwound through the
  // unwinder set below.
  void append(std::string& out, const kernel::SyscallTraceEventDwarf& event, size_t size);
  // Appends a page fault's line (--pf).
  void append(std::string& out, const kernel::FaultTraceEvent& event);

  // What an address of a traced task is, for callchain entries and fault sites.
  struct Place {
    std::string_view dso;      // "" outside every known map
    std::string symbol;        // "" where no symbol covers it
    uint64_t dso_address = 0;  // in the DSO's symbol space (perf's al->addr)
    uint64_t symbol_offset = 0;
    bool inlined = false;  // a function inlined at the frame's address: "name (inlined)"
  };
  using PlaceFinder = std::function<Place(pid_t pid, pid_t tid, uint64_t address, bool kernel)>;
  // Calls print their stacks, and faults their sites, named through this.
  void set_place_finder(PlaceFinder finder) { place_finder_ = std::move(finder); }
  // The user frames of a --call-graph dwarf call, leaf first, inline frames expanded.
  using DwarfUnwinder = std::function<std::vector<Place>(const kernel::SyscallTraceEventDwarf& event)>;
  void set_dwarf_unwinder(DwarfUnwinder unwinder) { dwarf_unwinder_ = std::move(unwinder); }
  analysis::TracedProcesses& processes() { return processes_; }

 private:
  analysis::SyscallCatalogue& catalogue_;
  TraceTextOptions options_;
  analysis::TracedProcesses processes_;
  TracepointText tracepoints_;
  SyscallContext context_;  // what the line printer asks of processes_, made once
  PlaceFinder place_finder_;
  DwarfUnwinder dwarf_unwinder_;
  const std::vector<Place>* user_chain_ = nullptr;  // the dwarf frames of the call being printed
  std::optional<uint64_t> base_ns_;
  // Each syscall's line format by number, made the first time it prints a whole call.
  std::vector<std::optional<SyscallLineFormat>> line_formats_ =
      std::vector<std::optional<SyscallLineFormat>>(SONDE_TRACE_MAX_SYSCALLS);
  std::optional<SyscallLineFormat> other_format_;  // a number past the table's

  double relative_ms(uint64_t stamp);
  const SyscallLineFormat& line_format(int nr, const SyscallCall& call);
  void append_callchain(std::string& out, const kernel::SyscallTraceEvent& event);
};

}  // namespace sonde::output
