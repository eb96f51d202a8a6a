#include "analysis/sched/sched_timehist.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/sched/sched_replay.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::analysis {

namespace {

// perf's struct stats (util/stat.c): Welford's running mean, in doubles, with min and max.
struct RunStats {
  double n = 0, mean = 0, m2 = 0;
  uint64_t max = 0, min = UINT64_MAX;
  void update(uint64_t value) {
    n += 1;
    double delta = static_cast<double>(value) - mean;
    mean += delta / n;
    m2 += delta * (static_cast<double>(value) - mean);
    max = std::max(max, value);
    min = std::min(min, value);
  }
  float rel_stddev() const {
    double stddev = 0;
    if (n >= 2) stddev = std::sqrt(m2 / (n - 1) / n);
    return mean != 0 ? static_cast<float>(100.0 * stddev / mean) : 0.0f;
  }
};

struct Runtime {
  bool present = false;  // perf allocated the thread's runtime data
  uint64_t last_time = 0, ready_to_run = 0;
  uint64_t dt_run = 0, dt_sleep = 0, dt_iowait = 0, dt_preempt = 0, dt_delay = 0;
  RunStats stats;
  uint64_t total_run = 0, total_sleep = 0, total_iowait = 0, total_preempt = 0, total_delay = 0;
  int64_t last_state = 0;
  uint64_t migrations = 0;
  uint32_t last_thread = SchedThreads::kNone;  // idle threads under -I: the task that ran before
};

constexpr int64_t kTaskUninterruptible = 2;

void update_runtime_stats(Runtime& r, uint64_t t, uint64_t tprev) {
  r.dt_delay = r.dt_sleep = r.dt_iowait = r.dt_preempt = r.dt_run = 0;
  if (tprev != 0) {
    r.dt_run = t - tprev;
    if (r.ready_to_run != 0 && r.ready_to_run <= tprev) r.dt_delay = tprev - r.ready_to_run;
    if (r.last_time != 0 && r.last_time <= tprev) {
      uint64_t wait = tprev - r.last_time;
      if (r.last_state == 0)
        r.dt_preempt = wait;
      else if (r.last_state == kTaskUninterruptible)
        r.dt_iowait = wait;
      else
        r.dt_sleep = wait;
    }
  }
  r.stats.update(r.dt_run);
  r.total_run += r.dt_run;
  r.total_delay += r.dt_delay;
  r.total_sleep += r.dt_sleep;
  r.total_iowait += r.dt_iowait;
  r.total_preempt += r.dt_preempt;
}

class TimehistHandler : public SchedHandler {
 public:
  TimehistHandler(const SchedTimehistOptions& options, SchedThreads& threads, TimehistSink& sink)
      : o_(options), threads_(threads), sink_(sink) {}

  bool ignore_wakeup = false;
  bool show_callchain = false;
  uint32_t max_cpu = 0;
  uint64_t skipped = 0;
  uint64_t hist_start = 0, hist_end = 0;

  void start(uint32_t nr_cpus_online) {
    max_cpu = nr_cpus_online != 0 ? nr_cpus_online : 4;
    idle_.resize(max_cpu);
    for (auto& idle : idle_) idle.present = true;
  }

  bool wants(SchedKind kind) const override {
    switch (kind) {
      case SchedKind::sched_switch:
      case SchedKind::waking:
      case SchedKind::wakeup_new:
        return true;
      case SchedKind::wakeup:
        return !ignore_wakeup;
      case SchedKind::migrate_task:
        return o_.migrations;
      case SchedKind::stat_runtime:
      case SchedKind::other:
        return false;
    }
    return false;
  }
  // Every sample widens perf's CPU count; one below the starting count cannot.
  uint32_t other_from_cpu() const override { return max_cpu; }

  void on_sched(const SchedSample& s) override {
    max_cpu = std::max(max_cpu, s.cpu);
    switch (s.kind) {
      case SchedKind::sched_switch:
        return on_switch(s);
      case SchedKind::wakeup:
        if (ignore_wakeup) return;
        [[fallthrough]];
      case SchedKind::waking:
      case SchedKind::wakeup_new:
        return on_wakeup(s);
      case SchedKind::migrate_task:
        if (o_.migrations) on_migrate(s);
        return;
      case SchedKind::stat_runtime:
      case SchedKind::other:
        return;
    }
  }

  void on_lost(uint64_t time, uint32_t cpu, uint64_t lost) override { sink_.lost(time, cpu, lost); }

  TimehistSummary summary() {
    TimehistSummary out;
    out.max_cpu = max_cpu;
    out.hist_time = hist_end - hist_start;
    std::vector<uint32_t> order = threads_.in_machine_order();
    for (int pass = 0; pass < 2; ++pass) add_tasks(order, pass == 1, out);
    out.idle_stats = skipped == 0 || o_.idle_hist;
    add_idle(out);
    // perf 6.1 prints "Idle stats by callchain" for -I on a recording with callchains: each CPU
    // perf tracks (-C or not) and its idle time, then a table that stays empty. perf does build
    // its callchain tree (each task's chain as it goes idle, weighted by the idle time after),
    // but sorts it into a plain red-black root and walks it from the cached leftmost node that
    // sort never sets, so no row is printed; sonde prints what perf prints.
    out.idle_callchains = o_.idle_hist && show_callchain;
    if (out.idle_callchains)
      for (uint32_t cpu = 0; cpu < idle_.size(); ++cpu)
        if (idle_[cpu].present) out.idle_chain_cpus.push_back(TimehistCpuIdle{cpu, 0, idle_[cpu].total_run});
    return out;
  }

 private:
  void add_tasks(const std::vector<uint32_t>& order, bool terminated, TimehistSummary& out) const {
    for (uint32_t id : order) {
      if (threads_.exited(id) != terminated || filtered(id)) continue;
      if (id >= runtimes_.size() || !runtimes_[id].present || runtimes_[id].stats.n == 0) continue;
      const Runtime& r = runtimes_[id];
      TimehistTaskSummary task;
      task.task = name(id);
      task.ppid = threads_.ppid(id);
      task.count = static_cast<uint64_t>(r.stats.n);
      task.total_run = r.total_run;
      task.min_run = r.stats.min;
      task.max_run = r.stats.max;
      task.mean_run = static_cast<uint64_t>(r.stats.mean);
      task.rel_stddev = r.stats.rel_stddev();
      task.migrations = r.migrations;
      task.total_sleep = r.total_sleep;
      task.total_iowait = r.total_iowait;
      task.total_preempt = r.total_preempt;
      task.total_delay = r.total_delay;
      ++out.task_count;
      out.sched_count += task.count;
      out.total_run_time += r.total_run;
      (terminated ? out.terminated : out.tasks).push_back(task);
    }
  }

 public:
  void add_idle(TimehistSummary& out) const {
    for (uint32_t cpu = 0; cpu < idle_.size(); ++cpu) {
      if (!o_.cpus.empty() && (cpu >= o_.cpus.size() || !o_.cpus[cpu])) continue;
      if (!idle_[cpu].present) continue;
      TimehistCpuIdle idle;
      idle.cpu = cpu;
      idle.count = static_cast<uint64_t>(idle_[cpu].stats.n);
      idle.total = idle_[cpu].total_run;
      if (out.idle_stats) out.sched_count += idle.count;
      out.idle.push_back(idle);
    }
  }

 private:
  TimehistTask name(uint32_t id) const {
    return TimehistTask{threads_.comm(id), threads_.pid(id), threads_.tid(id)};
  }
  static TimehistTask idle_name() { return TimehistTask{"<idle>", 0, 0}; }

  Runtime& runtime(uint32_t id) {
    if (id >= runtimes_.size()) runtimes_.resize(id + 1024);
    runtimes_[id].present = true;
    return runtimes_[id];
  }
  // perf's get_idle_thread: the per-CPU table grows to the next power of two.
  Runtime& idle(uint32_t cpu) {
    if (cpu >= idle_.size()) {
      size_t size = 1;
      while (size < cpu + 1) size <<= 1;
      idle_.resize(size);
    }
    idle_[cpu].present = true;
    return idle_[cpu];
  }

  bool cpu_selected(uint32_t cpu) const { return o_.cpus.empty() || (cpu < o_.cpus.size() && o_.cpus[cpu]); }

  bool filtered(uint32_t id) const {
    if (!o_.pids.empty() && std::find(o_.pids.begin(), o_.pids.end(), threads_.pid(id)) == o_.pids.end())
      return true;
    if (!o_.tids.empty() && std::find(o_.tids.begin(), o_.tids.end(), threads_.tid(id)) == o_.tids.end())
      return true;
    return false;
  }
  bool idle_filtered() const {
    if (!o_.pids.empty() && std::find(o_.pids.begin(), o_.pids.end(), 0) == o_.pids.end()) return true;
    if (!o_.tids.empty() && std::find(o_.tids.begin(), o_.tids.end(), 0) == o_.tids.end()) return true;
    return false;
  }

  // perf's timehist_skip_sample; `id` kNone is the CPU's idle thread.
  bool skip(uint32_t id, const SchedSample& s) {
    bool rc = false;
    if (id == SchedThreads::kNone ? idle_filtered() : filtered(id)) {
      rc = true;
      ++skipped;
    }
    if (o_.idle_hist) {
      if (s.kind != SchedKind::sched_switch)
        rc = true;
      else if (s.prev_pid != 0 && s.next_pid != 0)
        rc = true;
    }
    return rc;
  }

  void on_switch(const SchedSample& s) {
    uint64_t t = s.time;
    bool is_idle = s.prev_pid == 0;
    uint32_t id = SchedThreads::kNone;
    if (is_idle) {
      idle(s.cpu);
    } else {
      id = threads_.findnew(s.sample_pid, s.sample_tid != 0 ? s.sample_tid : s.sample_pid);
      if (o_.idle_hist) idle(s.cpu).last_thread = id;
    }
    Runtime* tr = nullptr;
    if (!skip(id, s)) {
      tr = is_idle ? &idle(s.cpu) : &runtime(id);
      uint64_t tprev = s.cpu < last_switch_.size() ? last_switch_[s.cpu] : 0;
      bool show = true;
      if (o_.start != 0 && o_.start > t) show = false;
      if (show && tprev != 0 && o_.start > tprev) tprev = o_.start;
      if (show && o_.end != 0) {
        if (tprev == 0 || tprev > o_.end)
          show = false;
        else if (t > o_.end)
          t = o_.end;
      }
      bool print = show;
      if (show && (!o_.idle_hist || is_idle)) {
        if (cpu_selected(s.cpu)) update_runtime_stats(*tr, t, tprev);
        if (o_.idle_hist) {
          Runtime& itr = *tr;
          if (itr.last_thread == SchedThreads::kNone) {
            print = false;
          } else {
            Runtime& last = runtime(itr.last_thread);
            update_runtime_stats(last, t, tprev);
            last.dt_run = last.dt_delay = last.dt_sleep = last.dt_iowait = last.dt_preempt = 0;
            itr.last_thread = SchedThreads::kNone;
          }
        }
      }
      // perf 6.1 prints every sample it did not skip, a task's under -I too (its times are 0:
      // only the idle task's are counted then).
      if (print && !o_.summary_only && cpu_selected(s.cpu)) {
        TimehistRow row;
        row.time = t;
        row.cpu = s.cpu;
        row.max_cpu = max_cpu;
        row.task = is_idle ? idle_name() : name(id);
        row.idle = is_idle;
        row.wait = tr->dt_sleep + tr->dt_iowait + tr->dt_preempt;
        row.delay = tr->dt_delay;
        row.run = tr->dt_run;
        row.state = s.prev_state;
        row.next_comm = s.next_comm;
        row.next_pid = s.next_pid;
        row.show_callchain = show_callchain;
        if (show_callchain && !is_idle) row.callchain = callchain_text(s);
        sink_.row(row);
      }
    }
    if (hist_start == 0 && t >= o_.start) hist_start = t;
    if (o_.end == 0 || t <= o_.end) hist_end = t;
    if (tr != nullptr) {
      tr->last_time = s.time;
      tr->last_state = s.prev_state;
      tr->ready_to_run = 0;
    }
    if (s.cpu >= last_switch_.size()) last_switch_.resize(s.cpu + 1, 0);
    last_switch_[s.cpu] = s.time;
  }

  void on_wakeup(const SchedSample& s) {
    uint32_t wakee = threads_.findnew(0, s.pid);
    Runtime& tr = runtime(wakee);
    if (tr.ready_to_run == 0) tr.ready_to_run = s.time;
    if (!o_.wakeups) return;
    if ((o_.start != 0 && o_.start > s.time) || (o_.end != 0 && o_.end < s.time)) return;
    uint32_t waker = threads_.findnew(s.sample_pid, s.sample_tid);
    if (skip(waker, s) && skip(wakee, s)) return;
    sink_.wakeup(s.time, s.cpu, max_cpu, name(waker), name(wakee));
  }

  void on_migrate(const SchedSample& s) {
    uint32_t migrant = threads_.findnew(0, s.pid);
    Runtime& tr = runtime(migrant);
    ++tr.migrations;
    if (o_.summary_only) return;
    uint32_t thread = threads_.findnew(s.sample_pid, s.sample_tid);
    if (skip(thread, s) && skip(migrant, s)) return;
    sink_.migration(s.time, s.cpu, max_cpu, name(thread), name(migrant), s.orig_cpu, s.dest_cpu);
  }

  // perf's one-line callchain: the first --max-stack + 2 frames, without the scheduler's own
  // (schedule, __schedule, preempt_schedule), " <-" between them, "[unknown]" for a frame
  // without a symbol. perf 6.1's timehist takes in MMAP records but not MMAP2, which is what
  // recordings hold: every user frame is "[unknown]" there, and here too, for equal output.
  std::string_view callchain_text(const SchedSample& s) {
    callchain_.clear();
    size_t taken = 0;
    bool first = true;
    for (const session::Location& location : s.callchain) {
      if (taken++ == static_cast<size_t>(o_.max_stack) + 2) break;
      const symbols::Symbol* symbol = location.kernel() && location.dso != nullptr
                                          ? symbolizer_.find(*location.dso, location.dso_address)
                                          : nullptr;
      std::string_view name = symbol != nullptr ? std::string_view(symbol->name) : "[unknown]";
      if (symbol != nullptr && (name == "schedule" || name == "__schedule" || name == "preempt_schedule"))
        continue;
      if (!first) callchain_ += " <-";
      callchain_ += ' ';
      callchain_ += name;
      first = false;
    }
    return callchain_;
  }

  const SchedTimehistOptions& o_;
  SchedThreads& threads_;
  TimehistSink& sink_;
  symbols::Symbolizer symbolizer_{symbols::SymbolizerOptions{}};
  std::string callchain_;
  std::vector<Runtime> runtimes_;  // by thread id
  std::vector<Runtime> idle_;      // by CPU
  std::vector<uint64_t> last_switch_;
};

}  // namespace

Result<void> sched_timehist(const SchedTimehistOptions& options, TimehistSink& sink,
                            Diagnostics& diagnostics) {
  SchedThreads threads;
  TimehistHandler handler(options, threads, sink);
  auto facts = SchedReplay::run(
      options.input_path, threads, handler, diagnostics,
      [&](const SchedFileFacts& f) -> Result<void> {
        if (!f.has_switch) return failf("No sched_switch events found. Have you run 'perf sched record'?");
        handler.ignore_wakeup = f.has_waking;
        handler.show_callchain = f.switch_has_callchain && options.call_graph;
        handler.start(f.nr_cpus_online);
        if (!options.summary_only) sink.header(handler.max_cpu);
        return {};
      },
      options.next, options.call_graph);
  if (!facts) return tl::unexpected(facts.error());
  if (options.summary || options.summary_only) sink.summary(handler.summary());
  return {};
}

}  // namespace sonde::analysis
