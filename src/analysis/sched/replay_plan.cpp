#include "analysis/sched/replay_plan.hpp"

#include <fmt/format.h>

#include "analysis/sched/sched_replay.hpp"

namespace sonde::analysis {

namespace {

using capture::ReplayAtom;
using capture::ReplayAtomKind;

constexpr uint32_t kMaxCpus = 4096;  // perf ignores switches on CPUs past its table

class PlanHandler : public SchedHandler {
 public:
  PlanHandler(SchedThreads& threads, ReplayPlanReport& report, bool verbose)
      : threads_(threads), report_(report), verbose_(verbose) {}

  bool ignore_wakeup = false;  // the file has sched_waking: perf 6.1 then reads no sched_wakeup
  Result<void> status;

  bool wants(SchedKind kind) const override {
    switch (kind) {
      case SchedKind::sched_switch:
      case SchedKind::wakeup_new:
        return true;
      case SchedKind::wakeup:
        return !ignore_wakeup;
      default:
        return false;
    }
  }
  uint32_t other_from_cpu() const override { return UINT32_MAX; }

  void on_sched(const SchedSample& s) override {
    if (!status) return;
    switch (s.kind) {
      case SchedKind::sched_switch:
        return on_switch(s);
      case SchedKind::wakeup:
        if (ignore_wakeup) return;
        [[fallthrough]];
      case SchedKind::wakeup_new:
        return on_wakeup(s);
      default:
        return;
    }
  }

  void on_fork(uint32_t child, uint32_t parent) override {
    if (verbose_) {
      log("fork event");
      log(fmt::format("... parent: {}/{}", threads_.comm(parent), threads_.tid(parent)));
      log(fmt::format("...  child: {}/{}", threads_.comm(child), threads_.tid(child)));
    }
    task(static_cast<uint32_t>(threads_.tid(parent)), threads_.comm(parent));
    task(static_cast<uint32_t>(threads_.tid(child)), threads_.comm(child));
  }

  // perf's add_cross_task_wakeups: each task wakes the next, the last the first.
  void add_cross_task_wakeups() {
    size_t n = plan().tasks.size();
    for (size_t i = 0; i < n; ++i) add_wakeup(i, i + 1 == n ? 0 : i + 1);
  }

 private:
  capture::ReplayPlan& plan() { return report_.plan; }
  void log(std::string line) { report_.verbose_lines.push_back(std::move(line)); }

  // perf's register_pid: the task of `pid`, made (with a first sleep) when new.
  size_t task(uint64_t pid, std::string_view comm) {
    if (pid < by_pid_.size() && by_pid_[pid] != SIZE_MAX) return by_pid_[pid];
    if (pid >= by_pid_.size()) by_pid_.resize(pid + 1024, SIZE_MAX);
    size_t index = plan().tasks.size();
    by_pid_[pid] = index;
    capture::ReplayTask created;
    created.pid = pid;
    created.comm.assign(comm);
    plan().tasks.push_back(std::move(created));
    add_sleep(index);
    if (verbose_) log(fmt::format("registered task #{}, PID {} ({})", index + 1, pid, comm));
    return index;
  }

  void add_sleep(size_t task) {
    plan().tasks[task].atoms.push_back(ReplayAtom{ReplayAtomKind::sleep, 0, ReplayAtom::kNoSemaphore});
    ++report_.nr_sleep_events;
  }

  void add_run(size_t task, uint64_t duration) {
    auto& atoms = plan().tasks[task].atoms;
    if (!atoms.empty() && atoms.back().kind == ReplayAtomKind::run) {
      ++report_.nr_run_events_optimized;
      atoms.back().duration += duration;
      return;
    }
    atoms.push_back(ReplayAtom{ReplayAtomKind::run, duration, ReplayAtom::kNoSemaphore});
    ++report_.nr_run_events;
  }

  void add_wakeup(size_t waker, size_t wakee) {
    plan().tasks[waker].atoms.push_back(ReplayAtom{ReplayAtomKind::wakeup, 0, ReplayAtom::kNoSemaphore});
    // The wakee's last atom (after the wake-up itself when a task wakes itself, as in perf).
    ReplayAtom& last = plan().tasks[wakee].atoms.back();
    if (last.kind != ReplayAtomKind::sleep) {
      ++report_.targetless_wakeups;
      return;
    }
    if (last.semaphore != ReplayAtom::kNoSemaphore) {
      ++report_.multitarget_wakeups;
      return;
    }
    last.semaphore = plan().semaphores++;
    plan().tasks[waker].atoms.back().semaphore = last.semaphore;
    ++report_.nr_wakeup_events;
  }

  void on_wakeup(const SchedSample& s) {
    if (verbose_) log(fmt::format(" ... pid {} woke up {}/{}", s.sample_tid, s.comm, s.pid));
    size_t waker = task(static_cast<uint32_t>(s.sample_tid), "<unknown>");
    size_t wakee = task(static_cast<uint32_t>(s.pid), s.comm);
    add_wakeup(waker, wakee);
  }

  void on_switch(const SchedSample& s) {
    if (s.cpu >= kMaxCpus) return;
    uint64_t last = last_switch_[s.cpu];
    if (last != 0 && s.time < last) {
      status = failf("hm, delta: {} < 0 ?", static_cast<int64_t>(s.time - last));
      return;
    }
    uint64_t delta = last != 0 ? s.time - last : 0;
    size_t prev = task(static_cast<uint32_t>(s.prev_pid), s.prev_comm);
    task(static_cast<uint32_t>(s.next_pid), s.next_comm);
    last_switch_[s.cpu] = s.time;
    add_run(prev, delta);
    add_sleep(prev);
  }

  SchedThreads& threads_;
  ReplayPlanReport& report_;
  bool verbose_;
  std::vector<size_t> by_pid_;
  std::vector<uint64_t> last_switch_ = std::vector<uint64_t>(kMaxCpus, 0);
};

}  // namespace

Result<ReplayPlanReport> build_replay_plan(const ReplayPlanOptions& options, Diagnostics& diagnostics) {
  ReplayPlanReport report;
  SchedThreads threads;
  PlanHandler handler(threads, report, options.verbose);
  auto facts = SchedReplay::run(
      options.input_path, threads, handler, diagnostics,
      [&](const SchedFileFacts& f) -> Result<void> {
        if (!f.has_switch) return failf("No sched_switch events found. Have you run 'perf sched record'?");
        handler.ignore_wakeup = f.has_waking;
        return {};
      },
      /*keep_comms=*/true);
  if (!facts) return tl::unexpected(facts.error());
  if (!handler.status) return tl::unexpected(handler.status.error());
  for (const capture::ReplayTask& task : report.plan.tasks)
    report.printed_events.push_back(task.atoms.size());
  // perf counts these wake-ups too, but after it printed the counters: they keep what it printed.
  uint64_t wakeups = report.nr_wakeup_events, targetless = report.targetless_wakeups,
           multitarget = report.multitarget_wakeups;
  handler.add_cross_task_wakeups();
  report.nr_wakeup_events = wakeups;
  report.targetless_wakeups = targetless;
  report.multitarget_wakeups = multitarget;
  return report;
}

}  // namespace sonde::analysis
