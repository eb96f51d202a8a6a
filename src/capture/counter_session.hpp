#pragma once
// Counting mode (perf stat): every event opened on every "slot" of the target — one per CPU
// for the system, one per thread for --per-thread, one for a workload or process tree — and
// read back as raw counts with their enabled/running times.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "base/unique_fd.hpp"
#include "events/event_spec.hpp"
#include "kernel/perf_event.hpp"
#include "kernel/syscall_counter.hpp"

namespace sonde::capture {

struct CountingTarget {
  enum class Kind { workload, processes, threads, system };
  Kind kind = Kind::workload;
  std::vector<pid_t> ids;       // the workload's pid, -p PIDs or -t TIDs
  std::vector<int> cpus;        // for system: the CPUs to count (-C, or every online CPU)
  bool per_thread = false;      // --per-thread: one slot per thread of the processes
  bool inherit = true;          // count children and new threads too (perf's default; -i turns it off)
  bool start_disabled = false;  // -D: a workload's counters wait for enable() instead of its exec
};

// What one counter instance counts.
struct Slot {
  int cpu = -1;
  pid_t tid = -1;
  std::string comm;  // the thread's name, for per-thread output
};

struct EventCounts {
  bool supported = true;  // false when the kernel has no such event here: "<not supported>"
  std::vector<kernel::CounterReading> slots;  // one per Slot; empty when unsupported
};

struct CountingOptions {
  // Serve syscalls:sys_enter_*/sys_exit_* with the in-kernel counter from this many such
  // events on; 0 turns it off (each tracepoint gets a perf event, as perf does).
  size_t syscall_aggregation_threshold = 4;
  bool verbose = false;
};

class CounterSession {
 public:
  // Opens every event (disabled; a workload's start at its exec). Fails on the first error
  // that perf also treats as fatal (permissions, a refused filter, a missing process). With
  // options.verbose, what falls back or is not supported goes to `diagnostics` as notes.
  static Result<CounterSession> open(const std::vector<events::EventSpec>& events,
                                     const CountingTarget& target, const CountingOptions& options,
                                     Diagnostics& diagnostics);
  CounterSession(CounterSession&&) noexcept = default;
  ~CounterSession();

  const std::vector<Slot>& slots() const { return slots_; }
  // New tasks the in-kernel syscall counter could not follow (its map was full).
  uint64_t syscall_follow_failures() const {
    return syscall_counter_ ? syscall_counter_->follow_failures() : 0;
  }
  // Starts counting now (targets other than a workload, whose counters start at exec), or again
  // after disable().
  Result<void> enable();
  void disable();
  // The counts so far, one entry per event in the order given to open().
  Result<std::vector<EventCounts>> read() const;

 private:
  CounterSession() = default;
  struct OpenEvent {
    bool supported = true;
    bool via_syscall_counter = false;
    int syscall_number = -1;
    bool exit_side = false;
    std::vector<kernel::PerfEventFd> fds;  // one per slot
  };
  std::vector<UniqueFd> cgroups_;  // -G: the cgroup directories events are opened in
  Result<void> open_perf_event(const events::EventSpec& spec, size_t index, const CountingTarget& target,
                               Diagnostics& diagnostics);
  uint64_t syscall_counter_time_ns() const;

  std::vector<Slot> slots_;
  std::vector<OpenEvent> events_;
  std::optional<kernel::SyscallCounter> syscall_counter_;
  bool system_wide_ = false;
  int64_t syscall_counter_started_ns_ = -1;
  int64_t syscall_counter_stopped_ns_ = -1;
  bool verbose_ = false;
};

}  // namespace sonde::capture
