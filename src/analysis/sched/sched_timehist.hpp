#pragma once
// perf sched timehist: one row per context switch — the task switched out, how long it waited
// before this run (sleep, I/O, preemption), its scheduling delay from wake-up to switch-in, and
// how long it ran — with wake-up and migration events between them, and perf's summaries of run
// times per task and idle time per CPU. The rows go to a TimehistSink (output/ prints them).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::analysis {

struct SchedTimehistOptions {
  std::string input_path = "perf.data";
  bool wakeups = false;             // -w
  bool migrations = false;          // -M
  bool cpu_visual = false;          // -V
  bool summary = false;             // -S (and -s)
  bool summary_only = false;        // -s
  bool idle_hist = false;           // -I
  bool state = false;               // --state
  bool next = false;                // -n
  bool call_graph = true;           // -g (perf's default): a recording's callchains on each row
  unsigned max_stack = 5;           // --max-stack: perf 6.1's default for timehist
  std::vector<int32_t> pids, tids;  // -p, -t: perf's thread filter
  std::vector<bool> cpus;           // -C: the CPUs whose rows and times count (empty: all)
  uint64_t start = 0, end = 0;      // --time, ns (0: open)
};

// A task as perf names it in timehist: "comm", "comm[tid]" or "comm[tid/pid]".
struct TimehistTask {
  std::string_view comm;
  int32_t pid = 0, tid = 0;
};

struct TimehistRow {
  uint64_t time = 0;
  uint32_t cpu = 0;
  uint32_t max_cpu = 0;
  TimehistTask task;
  bool idle = false;
  uint64_t wait = 0, delay = 0, run = 0;
  int64_t state = 0;
  std::string_view next_comm;
  int32_t next_pid = 0;
  bool show_callchain = false;  // the recording has callchains and -g is on
  std::string_view callchain;   // " f <- g <- h", perf's one-line callchain of the task
};

struct TimehistTaskSummary {
  TimehistTask task;
  int32_t ppid = -1;
  uint64_t count = 0, total_run = 0, min_run = 0, max_run = 0, mean_run = 0;
  float rel_stddev = 0;
  uint64_t migrations = 0;
  uint64_t total_sleep = 0, total_iowait = 0, total_preempt = 0, total_delay = 0;
};

struct TimehistCpuIdle {
  uint32_t cpu = 0;
  uint64_t count = 0, total = 0;
};

struct TimehistSummary {
  std::vector<TimehistTaskSummary> tasks;        // running at the end, in perf's machine order
  std::vector<TimehistTaskSummary> terminated;   // exited (PERF_RECORD_EXIT), in the same order
  bool idle_stats = true;                        // false when samples were filtered out (perf then stops)
  std::vector<TimehistCpuIdle> idle;             // the CPUs perf tracks (its -C applied)
  bool idle_callchains = false;                  // -I on a recording with callchains, -g on
  std::vector<TimehistCpuIdle> idle_chain_cpus;  // then every CPU perf tracks, -C or not (count unused)
  uint64_t task_count = 0, sched_count = 0, total_run_time = 0, hist_time = 0;
  uint32_t max_cpu = 0;
};

class TimehistSink {
 public:
  virtual ~TimehistSink() = default;
  virtual void header(uint32_t max_cpu) = 0;
  virtual void row(const TimehistRow& row) = 0;
  virtual void wakeup(uint64_t time, uint32_t cpu, uint32_t max_cpu, TimehistTask waker,
                      TimehistTask wakee) = 0;
  virtual void migration(uint64_t time, uint32_t cpu, uint32_t max_cpu, TimehistTask task,
                         TimehistTask migrated, int32_t orig_cpu, int32_t dest_cpu) = 0;
  virtual void lost(uint64_t time, uint32_t cpu, uint64_t count) = 0;
  virtual void summary(const TimehistSummary& summary) = 0;
};

// Replays the file into `sink`. Fails as perf does when the file has no sched_switch events.
Result<void> sched_timehist(const SchedTimehistOptions& options, TimehistSink& sink,
                            Diagnostics& diagnostics);

}  // namespace sonde::analysis
