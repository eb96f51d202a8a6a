#pragma once
// In-kernel off-CPU profiling (perf record --off-cpu): how long traced threads sleep, with their
// kernel and user stacks, measured by a BPF program on sched_switch. Long blocks are written to
// the offcpu-time perf event as they end; short ones are totalled per (thread, stacks, state)
// and read at the end. Thin RAII over the BPF skeleton; the program detaches when it goes.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "bpf/off_cpu_event.h"

struct off_cpu;  // the generated BPF skeleton

namespace sonde::kernel {

using OffCpuKey = ::off_cpu_key;
using OffCpuSample = ::off_cpu_sample;

struct OffCpuOptions {
  bool system_wide = false;     // -a/-C: every user task
  std::vector<int> cpus;        // -C: only blocks that end on these CPUs; empty: all
  bool follow_children = true;  // false for --no-inherit
  uint64_t direct_threshold_ns = 500'000'000;
  bool wakers = false;  // who woke each block, and where
};

struct OffCpuTotal {
  OffCpuKey key{};
  uint64_t blocked_ns = 0;
};

class OffCpuProfiler {
 public:
  static Result<OffCpuProfiler> open(const OffCpuOptions& options);
  OffCpuProfiler(OffCpuProfiler&&) noexcept;
  OffCpuProfiler& operator=(OffCpuProfiler&&) noexcept;
  ~OffCpuProfiler();

  // Where long blocks are written: the offcpu-time perf event's fd on each CPU, as (cpu, fd).
  Result<void> connect(const std::vector<std::pair<int, int>>& cpu_fds);
  // Follows one task and what it forks from now on; with wait_for_exec, from its next exec on.
  Result<void> follow(pid_t tid, bool wait_for_exec);
  // Attaches the programs and starts measuring.
  Result<void> start();
  // Stops measuring and detaches; the maps stay readable.
  void stop();
  // A stack by its id, leaf first; empty for a negative or unknown id.
  std::vector<uint64_t> stack(int32_t id) const;
  // The short blocks' totals.
  Result<std::vector<OffCpuTotal>> totals() const;
  // Blocks lost: totals the map had no room for, samples the perf buffer had no room for, tasks
  // whose storage could not be made, and switches the kernel did not run the program for.
  uint64_t lost() const;

 private:
  OffCpuProfiler() = default;
  struct Deleter {
    void operator()(off_cpu* skeleton) const;
  };
  std::unique_ptr<off_cpu, Deleter> skeleton_;
};

}  // namespace sonde::kernel
