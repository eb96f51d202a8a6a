#pragma once
// One perf-stat style measurement: start the workload (or attach to the target), count until
// it ends, Ctrl-C/SIGTERM, or a timeout, calling back at each interval (-I).
#include <sys/resource.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "capture/control_channel.hpp"
#include "capture/counter_session.hpp"

namespace sonde::capture {

struct CountingRunOptions {
  std::vector<std::string> command;  // run and count this; empty to count the target as it is
  CountingTarget target;             // ids are filled in with the workload's pid for a command
  CountingOptions counting;
  std::optional<std::chrono::milliseconds> interval;  // -I
  std::optional<int> interval_count;                  // --interval-count
  std::optional<std::chrono::milliseconds> timeout;   // --timeout
  // -D: counting starts this long after the workload does; negative: only on --control enable.
  std::optional<std::chrono::milliseconds> delay;
  ControlChannel* control = nullptr;  // --control: enable/disable/stop commands while counting
};

struct CountingRunResult {
  std::vector<Slot> slots;
  std::vector<EventCounts> counts;  // cumulative over the whole run
  double elapsed_ns = 0;
  bool had_workload = false;
  rusage workload_usage{};
  int workload_wait_status = 0;
  int exit_status = 0;                   // the workload's, as a shell reports it; 0 without one
  int stopped_by_signal = 0;             // SIGINT or SIGTERM that ended the run, else 0
  uint64_t syscall_follow_failures = 0;  // new tasks the in-kernel syscall counter lost track of
};

// Called at each interval with the time since the start, the slots and the cumulative counts.
using IntervalCallback = std::function<void(double elapsed_ns, const std::vector<Slot>& slots,
                                            const std::vector<EventCounts>& cumulative)>;

Result<CountingRunResult> run_counting(const std::vector<events::EventSpec>& events,
                                       const CountingRunOptions& options, const IntervalCallback& on_interval,
                                       Diagnostics& diagnostics);

}  // namespace sonde::capture
