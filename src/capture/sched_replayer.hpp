#pragma once
// perf sched replay's workload, acted out: one thread per recorded task, each running through
// its atoms — burn the CPU for a run, wait on a semaphore for a sleep another task's wake-up
// posts — as perf 6.1's replay does, round after round. The plan (which atoms, which
// semaphores) is worked out from a recording by analysis/sched/replay_plan; this file only
// measures the clocks and runs threads, so it sits with the other code that makes things run.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde::capture {

enum class ReplayAtomKind : uint8_t { run, sleep, wakeup };

struct ReplayAtom {
  static constexpr uint32_t kNoSemaphore = UINT32_MAX;
  ReplayAtomKind kind = ReplayAtomKind::run;
  uint64_t duration = 0;              // run: ns of CPU to burn
  uint32_t semaphore = kNoSemaphore;  // sleep: waits on it; wakeup: posts it (none: a no-op)
};

struct ReplayTask {
  std::string comm;
  uint64_t pid = 0;
  std::vector<ReplayAtom> atoms;
};

struct ReplayPlan {
  std::vector<ReplayTask> tasks;  // perf's task order: as they were first named
  uint32_t semaphores = 0;        // how many semaphores the atoms name
};

// perf's calibration: the cost of reading the clock in the burn loop and of a short nanosleep,
// then a 1 ms burn and a 1 ms sleep timed with them.
struct ReplayCalibration {
  uint64_t run_overhead = 0, sleep_overhead = 0, run_test = 0, sleep_test = 0;
};
ReplayCalibration calibrate_replay();

// One round: its wall time, the replay threads' CPU time, and perf's running averages of both
// (weighted by the repeat count, as perf's are).
struct ReplayRound {
  uint64_t number = 0, wall = 0, run_avg = 0, cpu = 0, cpu_avg = 0;
};

// The threads of a plan, started once and driven one round at a time; the destructor lets
// them finish and joins them.
class SchedReplayer {
 public:
  static Result<std::unique_ptr<SchedReplayer>> start(const ReplayPlan& plan, uint64_t run_overhead,
                                                      unsigned repeat);
  ~SchedReplayer();
  SchedReplayer(const SchedReplayer&) = delete;
  SchedReplayer& operator=(const SchedReplayer&) = delete;

  ReplayRound run_round();

  struct State;

 private:
  explicit SchedReplayer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace sonde::capture
