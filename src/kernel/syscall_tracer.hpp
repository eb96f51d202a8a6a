#pragma once
// In-kernel system call tracing (BPF on the sys_enter/sys_exit raw tracepoints): completed calls
// with their arguments through a ring buffer, and per-(thread, syscall) counts, errors and
// durations in maps. Thin RAII over the BPF skeleton; the program detaches when this dies.
#include <sys/types.h>

#include <array>
#include <bitset>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "kernel/bpf/syscall_trace_event.h"

struct syscall_tracer;  // the generated BPF skeleton
struct ring_buffer;
struct bpf_program;
struct bpf_link;

namespace sonde::kernel {

using SyscallTraceEvent = ::syscall_trace_event;
using TracepointTraceEvent = ::tracepoint_trace_event;
using FaultTraceEvent = ::fault_trace_event;
using SyscallTraceEventDwarf = ::syscall_trace_event_dwarf;

// A tracepoint -e names, attached beside the syscalls.
struct TracedTracepoint {
  std::string system, name;
  uint32_t id = 0;          // its tracefs id (the records' common_type)
  uint32_t fixed_size = 0;  // bytes of its record before any dynamic data
};

struct SyscallTracerOptions {
  bool system_wide = false;     // -a: every task (but excluded_pids)
  bool follow_children = true;  // false for --no-inherit
  bool copy_events = true;      // false: summary only, nothing copied per call
  bool keep_stats = true;
  bool keep_errnos = false;  // --errno-summary
  bool failures_only = false;
  bool user_stacks = false;              // --call-graph: each call's user stack at its exit
  bool dwarf_stacks = false;             // --call-graph dwarf: registers and a stack copy at each exit
  bool kernel_stacks = false;            // --kernel-syscall-graph: and the kernel's
  bool major_faults = false;             // --pf maj/all
  bool minor_faults = false;             // --pf min/all
  std::vector<int> online_cpus;          // where the fault events open (every online CPU)
  bool count_child_fork_returns = true;  // false: strace -c's counts (a child's fork return is not a call)
  uint64_t min_duration_ns = 0;
  std::bitset<SONDE_TRACE_MAX_SYSCALLS> selected;  // the syscalls traced, by number
  std::vector<uint8_t> string_masks;               // per syscall number: arguments read as strings
  std::vector<int> cpus;                           // -C (system wide only); empty: all
  std::optional<uid_t> uid;                        // -u (system wide only)
  std::vector<pid_t> excluded_pids;                // --filter-pids, and sonde itself
  size_t ring_bytes = 16u << 20;
  std::vector<TracedTracepoint> tracepoints;
};

struct SyscallStatsRow {
  pid_t tid = 0;
  int nr = 0;
  syscall_stats_value value{};
};

struct SyscallErrnoRow {
  pid_t tid = 0;
  int nr = 0;
  int err = 0;
  uint64_t count = 0;
};

class SyscallTracer {
 public:
  struct EventHandler {
    std::function<void(const SyscallTraceEvent& event, size_t size)> on_syscall;
    std::function<void(const TracepointTraceEvent& event)> on_tracepoint;
    std::function<void(const FaultTraceEvent& event)> on_fault;
    std::function<void(const SyscallTraceEventDwarf& event, size_t size)> on_syscall_dwarf;
  };

  static Result<SyscallTracer> open(const SyscallTracerOptions& options);
  SyscallTracer(SyscallTracer&&) noexcept;
  SyscallTracer& operator=(SyscallTracer&&) noexcept;
  ~SyscallTracer();

  // Follows one task (and what it forks from now on); with wait_for_exec from its next exec on.
  Result<void> follow(pid_t tid, bool wait_for_exec);
  // Attaches the fork and exec followers (marks spread from now on) and, unless
  // `followers_only`, the syscall programs too: tracing starts.
  Result<void> start(EventHandler on_event, bool followers_only = false);
  // Attaches the syscall programs after a start with followers_only (perf trace -D).
  Result<void> start_tracing();
  // An fd that polls readable when events are waiting (-1 in a summary-only trace).
  int ring_epoll_fd() const;
  // Detaches the programs: nothing more is traced (events already buffered can still be read).
  void stop();
  // Waits up to timeout_ms for events and hands each to the handler; the number handled.
  Result<int> poll(int timeout_ms);
  // Hands over everything buffered now.
  Result<int> drain();

  uint64_t lost_events() const;
  // When the first traced call entered (CLOCK_MONOTONIC ns), 0 before any.
  uint64_t first_event_ns() const;
  uint64_t lost_stats() const;
  uint64_t follow_failures() const;
  Result<std::vector<SyscallStatsRow>> read_stats() const;
  Result<std::vector<SyscallErrnoRow>> read_errnos() const;
  struct FaultCounts {
    pid_t tid = 0;
    uint64_t major = 0, minor = 0;
  };
  Result<std::vector<FaultCounts>> read_faults() const;
  // The comm of each traced thread as its last exec (or first traced call) left it.
  Result<std::vector<std::pair<pid_t, std::string>>> read_comms() const;

 private:
  SyscallTracer() = default;
  struct SkeletonDeleter {
    void operator()(syscall_tracer* skeleton) const;
  };
  struct RingDeleter {
    void operator()(ring_buffer* ring) const;
  };
  std::unique_ptr<syscall_tracer, SkeletonDeleter> skeleton_;
  std::unique_ptr<ring_buffer, RingDeleter> ring_;
  std::unique_ptr<EventHandler> handler_;  // stable address for the ring buffer's callback
  std::vector<struct bpf_link*> tracepoint_links_;
  std::vector<struct bpf_link*> fault_links_;
  SyscallTracerOptions options_;
};

}  // namespace sonde::kernel
