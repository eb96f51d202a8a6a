#pragma once
// The per-CPU ring-buffer statistics the kernel keeps in per_cpu/cpuN/stats.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "ftrace/instance.hpp"

namespace sonde::ftrace {

struct CpuBufferStats {
  uint64_t entries = 0;                 // events in the buffer now
  uint64_t overrun = 0;                 // events overwritten (lost) since the buffer was made or reset
  uint64_t commit_overrun = 0;          // events lost while the buffer wrapped inside a nested write
  uint64_t bytes = 0;                   // bytes of events in the buffer now
  uint64_t dropped_events = 0;          // events dropped because the buffer was full (overwrite off)
  uint64_t read_events = 0;             // events consumed by readers
  std::string oldest_event_ts, now_ts;  // seconds, as the kernel prints them

  uint64_t lost() const { return overrun + commit_overrun + dropped_events; }
};

// Parses the text of a stats file; unknown lines are ignored, missing ones stay 0.
CpuBufferStats parse_cpu_stats(std::string_view text);
Result<CpuBufferStats> read_cpu_stats(const Instance& instance, int cpu);
// The CPUs the instance has a buffer for (per_cpu/cpuN), ascending.
Result<std::vector<int>> buffer_cpus(const Instance& instance);

}  // namespace sonde::ftrace
