#include "analysis/sched/sched_latency.hpp"

#include <algorithm>
#include <map>

#include "analysis/sched/sched_replay.hpp"

namespace sonde::analysis {

namespace {

enum class AtomState : uint8_t { sleeping, wait_cpu, sched_in, ignore };

struct Atoms {
  uint32_t thread = 0;
  bool has_atom = false;  // perf's work_list is not empty
  AtomState state = AtomState::sleeping;
  uint64_t sched_out_time = 0, wake_up_time = 0;
  uint64_t total_runtime = 0, nb_atoms = 0, total_lat = 0, max_lat = 0, max_lat_start = 0, max_lat_end = 0;
  int num_merged = 0;
};

class LatencyHandler : public SchedHandler {
 public:
  LatencyHandler(SchedThreads& threads, int profile_cpu) : threads_(threads), profile_cpu_(profile_cpu) {}

  bool ignore_wakeup = false;  // the file has sched_waking: perf takes only those

  bool wants(SchedKind kind) const override {
    switch (kind) {
      case SchedKind::sched_switch:
      case SchedKind::stat_runtime:
      case SchedKind::wakeup_new:
        return true;
      case SchedKind::wakeup:
        return !ignore_wakeup;
      case SchedKind::migrate_task:
        return profile_cpu_ != -1;
      case SchedKind::waking:
      case SchedKind::other:
        return false;
    }
    return false;
  }
  uint32_t other_from_cpu() const override { return UINT32_MAX; }

  void on_sched(const SchedSample& s) override {
    switch (s.kind) {
      case SchedKind::sched_switch:
        return on_switch(s);
      case SchedKind::stat_runtime:
        return on_runtime(s);
      // perf 6.1 has no latency handler for sched_waking, and ignores sched_wakeup when the file
      // has sched_waking (which its own `sched record` picks when the kernel has it): so only
      // sched_wakeup_new counts then. Kept for equal output; see the README's differences.
      case SchedKind::waking:
        return;
      case SchedKind::wakeup:
        if (ignore_wakeup) return;
        [[fallthrough]];
      case SchedKind::wakeup_new:
        return on_wakeup(s);
      case SchedKind::migrate_task:
        return on_migrate(s);
      case SchedKind::other:
        return;
    }
  }

  std::vector<Atoms>& atoms() { return atoms_; }
  uint64_t nr_timestamps = 0, nr_unordered_timestamps = 0, nr_context_switch_bugs = 0;

 private:
  // The thread's atoms, created (empty) when it has none: perf's thread_atoms_insert.
  Atoms* atoms_of(uint32_t thread, bool& created) {
    if (thread >= index_.size()) index_.resize(thread + 1024, UINT32_MAX);
    created = index_[thread] == UINT32_MAX;
    if (created) {
      index_[thread] = static_cast<uint32_t>(atoms_.size());
      atoms_.push_back(Atoms{});
      atoms_.back().thread = thread;
    }
    return &atoms_[index_[thread]];
  }

  static void add_sched_out(Atoms& a, bool runnable, uint64_t time) {
    a.has_atom = true;
    a.sched_out_time = time;
    a.state = runnable ? AtomState::wait_cpu : AtomState::sleeping;
    a.wake_up_time = runnable ? time : 0;
  }

  static void add_sched_in(Atoms& a, uint64_t time) {
    if (!a.has_atom || a.state != AtomState::wait_cpu) return;
    if (time < a.wake_up_time) {
      a.state = AtomState::ignore;
      return;
    }
    a.state = AtomState::sched_in;
    uint64_t delta = time - a.wake_up_time;
    a.total_lat += delta;
    if (delta > a.max_lat) {
      a.max_lat = delta;
      a.max_lat_start = a.wake_up_time;
      a.max_lat_end = time;
    }
    ++a.nb_atoms;
  }

  void on_switch(const SchedSample& s) {
    if (s.cpu >= curr_pid_.size()) curr_pid_.resize(s.cpu + 1, -1);
    if (curr_pid_[s.cpu] != -1 && curr_pid_[s.cpu] != s.prev_pid) ++nr_context_switch_bugs;
    curr_pid_[s.cpu] = s.next_pid;
    uint32_t out_thread = threads_.findnew(-1, s.prev_pid);
    uint32_t in_thread = threads_.findnew(-1, s.next_pid);
    bool created;
    // perf 6.1 reads the state as "RSDTtZXxKWP"[prev_state]: only 0 is 'R' (runnable).
    add_sched_out(*atoms_of(out_thread, created), s.prev_state == 0, s.time);
    Atoms* in = atoms_of(in_thread, created);
    if (created) add_sched_out(*in, true, s.time);
    add_sched_in(*in, s.time);
  }

  void on_runtime(const SchedSample& s) {
    bool created;
    Atoms* a = atoms_of(threads_.findnew(-1, s.pid), created);
    if (created) add_sched_out(*a, true, s.time);
    a->total_runtime += s.runtime;
  }

  void on_wakeup(const SchedSample& s) {
    bool created;
    Atoms* a = atoms_of(threads_.findnew(-1, s.pid), created);
    if (created) add_sched_out(*a, false, s.time);
    if (profile_cpu_ == -1 && a->state != AtomState::sleeping) return;
    ++nr_timestamps;
    if (a->sched_out_time > s.time) {
      ++nr_unordered_timestamps;
      return;
    }
    a->state = AtomState::wait_cpu;
    a->wake_up_time = s.time;
  }

  void on_migrate(const SchedSample& s) {
    if (profile_cpu_ == -1) return;
    bool created;
    Atoms* a = atoms_of(threads_.findnew(-1, s.pid), created);
    if (created) add_sched_out(*a, true, s.time);
    a->sched_out_time = a->wake_up_time = s.time;
    ++nr_timestamps;
  }

  SchedThreads& threads_;
  int profile_cpu_;
  std::vector<Atoms> atoms_;
  std::vector<uint32_t> index_;  // by thread id
  std::vector<int64_t> curr_pid_;
};

int compare_key(const std::string& key, const Atoms& l, const Atoms& r, const SchedThreads& threads) {
  auto cmp = [](uint64_t a, uint64_t b) { return a < b ? -1 : a > b ? 1 : 0; };
  if (key == "pid") {
    int c = cmp(static_cast<uint64_t>(static_cast<int64_t>(threads.tid(l.thread)) + (1LL << 32)),
                static_cast<uint64_t>(static_cast<int64_t>(threads.tid(r.thread)) + (1LL << 32)));
    return c != 0 ? c : cmp(l.thread, r.thread);
  }
  if (key == "avg") {
    if (l.nb_atoms == 0) return -1;
    if (r.nb_atoms == 0) return 1;
    return cmp(l.total_lat / l.nb_atoms, r.total_lat / r.nb_atoms);
  }
  if (key == "max") return cmp(l.max_lat, r.max_lat);
  if (key == "switch") return cmp(l.nb_atoms, r.nb_atoms);
  return cmp(l.total_runtime, r.total_runtime);  // runtime
}

}  // namespace

Result<void> check_latency_sort_keys(const std::vector<std::string>& keys) {
  for (const std::string& key : keys)
    if (key != "runtime" && key != "switch" && key != "avg" && key != "max" && key != "pid")
      return failf("unknown --sort key: `{}'", key);
  return {};
}

Result<SchedLatencyReport> sched_latency(const SchedLatencyOptions& options, Diagnostics& diagnostics) {
  if (auto keys = check_latency_sort_keys(options.sort_keys); !keys) return tl::unexpected(keys.error());
  SchedThreads threads;
  LatencyHandler handler(threads, options.profile_cpu);
  auto facts =
      SchedReplay::run(options.input_path, threads, handler, diagnostics, [&](const SchedFileFacts& f) {
        handler.ignore_wakeup = f.has_waking;
        return Result<void>{};
      });
  if (!facts) return tl::unexpected(facts.error());

  // perf's tree of tasks puts the greater (tid, thread) on the left, so it walks them from the
  // highest tid down: merging by comm keeps the first of each, ties in sorting keep this order.
  std::vector<Atoms>& all = handler.atoms();
  std::vector<Atoms*> by_pid;
  by_pid.reserve(all.size());
  for (Atoms& a : all) by_pid.push_back(&a);
  std::stable_sort(by_pid.begin(), by_pid.end(),
                   [&](const Atoms* l, const Atoms* r) { return compare_key("pid", *l, *r, threads) > 0; });
  std::vector<Atoms*> entries;
  if (options.per_pid) {
    entries = by_pid;
  } else {
    // perf's merged tree is ordered by comm, greatest first, and is walked in that order.
    std::map<std::string, Atoms*, std::greater<>> merged;
    for (Atoms* a : by_pid) {
      auto [it, inserted] = merged.emplace(threads.comm(a->thread), a);
      Atoms& into = *it->second;
      if (inserted) {
        ++into.num_merged;
        continue;
      }
      ++into.num_merged;
      into.total_runtime += a->total_runtime;
      into.nb_atoms += a->nb_atoms;
      into.total_lat += a->total_lat;
      if (into.max_lat < a->max_lat) {
        into.max_lat = a->max_lat;
        into.max_lat_start = a->max_lat_start;
        into.max_lat_end = a->max_lat_end;
      }
    }
    for (auto& [comm, a] : merged) entries.push_back(a);
  }
  // Greatest first; equal ones keep the order they were inserted in, as in perf's tree.
  std::stable_sort(entries.begin(), entries.end(), [&](const Atoms* l, const Atoms* r) {
    for (const std::string& key : options.sort_keys) {
      int c = compare_key(key, *l, *r, threads);
      if (c != 0) return c > 0;
    }
    return false;
  });

  SchedLatencyReport report;
  for (const Atoms* a : entries) {
    if (a->nb_atoms == 0) continue;
    const std::string& comm = threads.comm(a->thread);
    if (comm == "swapper") continue;
    report.all_runtime += a->total_runtime;
    report.all_count += a->nb_atoms;
    SchedLatencyRow row;
    row.comm = comm;
    row.tid = threads.tid(a->thread);
    row.num_merged = a->num_merged;
    row.total_runtime = a->total_runtime;
    row.nb_atoms = a->nb_atoms;
    row.total_lat = a->total_lat;
    row.max_lat = a->max_lat;
    row.max_lat_start = a->max_lat_start;
    row.max_lat_end = a->max_lat_end;
    report.rows.push_back(std::move(row));
  }
  report.nr_timestamps = handler.nr_timestamps;
  report.nr_unordered_timestamps = handler.nr_unordered_timestamps;
  report.nr_context_switch_bugs = handler.nr_context_switch_bugs;
  report.nr_events = facts->nr_events;
  report.nr_lost_events = facts->lost_events;
  report.nr_lost_chunks = facts->lost_chunks;
  return report;
}

}  // namespace sonde::analysis
