#pragma once
// Lock contention measured in the kernel (perf lock contention -b): a BPF program on
// lock:contention_begin/end totals each wait by the contending kernel stack (or by thread), for
// a workload and what it forks, -p/--tid tasks, or the whole system. Thin RAII over the BPF
// skeleton; the programs detach when it goes.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "base/error.hpp"
#include "bpf/lock_contention_event.h"

struct lock_contention;  // the generated BPF skeleton

namespace sonde::kernel {

struct LockTracerOptions {
  bool system_wide = false;      // -a, or no task given
  bool by_task = false;          // -t: totals per thread
  std::vector<int> cpus;         // -C: only waits that begin on these CPUs; empty: all
  uint32_t map_entries = 10240;  // -M: stacks and totals kept
  int stack_skip = 3;            // --stack-skip: innermost frames not kept (the tracer's own)
};

struct LockWaitTotal {
  uint64_t id = 0;  // the stack's id, or with by_task the thread's id
  ::lock_contention_total total{};
};

class LockContentionTracer {
 public:
  static Result<LockContentionTracer> open(const LockTracerOptions& options);
  LockContentionTracer(LockContentionTracer&&) noexcept;
  LockContentionTracer& operator=(LockContentionTracer&&) noexcept;
  ~LockContentionTracer();

  // Follows one task and what it forks from now on; with wait_for_exec, from its next exec on.
  Result<void> follow(pid_t tid, bool wait_for_exec);
  Result<void> start();
  // Detaches; the maps stay readable.
  void stop();
  Result<std::vector<LockWaitTotal>> totals() const;
  // A stack by its id, innermost first; empty for an unknown id.
  std::vector<uint64_t> stack(uint64_t id) const;
  // Waits not counted: no room for the wait, its stack or its total, a task not followed, and
  // runs the kernel skipped (a program would have run inside itself).
  uint64_t lost() const;

 private:
  LockContentionTracer() = default;
  struct Deleter {
    void operator()(lock_contention* skeleton) const;
  };
  std::unique_ptr<lock_contention, Deleter> skeleton_;
};

}  // namespace sonde::kernel
