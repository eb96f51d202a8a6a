#include "analysis/sched/sched_map.hpp"

#include <algorithm>

#include "analysis/sched/sched_replay.hpp"

namespace sonde::analysis {

namespace {

struct MapThread {
  char shortname[2] = {0, 0};
  bool comm_changed = false;
};

bool in(const std::vector<bool>& set, uint32_t cpu) { return cpu < set.size() && set[cpu]; }

class MapHandler : public SchedHandler {
 public:
  MapHandler(const SchedMapOptions& options, SchedThreads& threads, SchedMapSink& sink)
      : o_(options), threads_(threads), sink_(sink), max_cpu_(options.max_cpu) {}

  SchedMapStats stats;

  bool wants(SchedKind kind) const override { return kind == SchedKind::sched_switch; }
  uint32_t other_from_cpu() const override { return UINT32_MAX; }

  void on_sched(const SchedSample& s) override {
    if (s.kind != SchedKind::sched_switch) return;
    if (s.cpu >= curr_pid_.size()) curr_pid_.resize(s.cpu + 1, -1);
    if (curr_pid_[s.cpu] != -1 && curr_pid_[s.cpu] != s.prev_pid) ++stats.nr_context_switch_bugs;
    switch_in(s);
    curr_pid_[s.cpu] = s.next_pid;
  }

  void on_comm(uint32_t thread, int32_t sample_tid) override {
    // perf flags the thread its sample_id names: the synthesized side-band's is all zeros.
    (void)thread;
    uint32_t id = threads_.find(sample_tid);
    if (id != SchedThreads::kNone) state(id).comm_changed = true;
  }

 private:
  MapThread& state(uint32_t id) {
    if (id >= map_threads_.size()) map_threads_.resize(id + 1024);
    return map_threads_[id];
  }

  bool colored(uint32_t id) const {
    return std::find(o_.color_pids.begin(), o_.color_pids.end(), threads_.tid(id)) != o_.color_pids.end();
  }

  void switch_in(const SchedSample& s) {
    uint32_t this_cpu = s.cpu;
    max_cpu_ = std::max(max_cpu_, this_cpu);
    size_t cpus_nr;
    bool new_cpu = false;
    if (o_.compact) {
      cpus_nr = compact_cpus_.size();
      if (!in(seen_, this_cpu)) {
        if (this_cpu >= seen_.size()) seen_.resize(this_cpu + 1, false);
        seen_[this_cpu] = true;
        compact_cpus_.push_back(this_cpu);
        ++cpus_nr;
        new_cpu = true;
      }
    } else {
      cpus_nr = max_cpu_;
    }
    uint32_t in_thread = threads_.findnew(-1, s.next_pid);
    if (this_cpu >= curr_thread_.size()) curr_thread_.resize(this_cpu + 1, SchedThreads::kNone);
    curr_thread_[this_cpu] = in_thread;
    MapThread& tr = state(in_thread);
    bool new_shortname = false;
    if (tr.shortname[0] == 0) {
      if (threads_.comm(in_thread) == "swapper") {
        tr.shortname[0] = '.';
        tr.shortname[1] = ' ';
      } else {
        tr.shortname[0] = next1_;
        tr.shortname[1] = next2_;
        if (next1_ < 'Z') {
          ++next1_;
        } else {
          next1_ = 'A';
          next2_ = next2_ < '9' ? static_cast<char>(next2_ + 1) : '0';
        }
      }
      new_shortname = true;
    }
    line_.cells.clear();
    for (size_t i = 0; i < cpus_nr; ++i) {
      uint32_t cpu = o_.compact ? compact_cpus_[i] : static_cast<uint32_t>(i);
      if (!o_.cpus.empty() && !in(o_.cpus, cpu)) continue;
      SchedMapCell cell;
      cell.current = cpu == this_cpu;
      cell.colored_cpu = in(o_.color_cpus, cpu);
      uint32_t curr = cpu < curr_thread_.size() ? curr_thread_[cpu] : SchedThreads::kNone;
      if (curr != SchedThreads::kNone) {
        cell.present = true;
        const MapThread& ct = state(curr);
        cell.shortname[0] = ct.shortname[0];
        cell.shortname[1] = ct.shortname[1];
        cell.colored_task = colored(curr);
      }
      line_.cells.push_back(cell);
    }
    line_.cpu_shown = o_.cpus.empty() || in(o_.cpus, this_cpu);
    line_.time = s.time;
    line_.announce = line_.cpu_shown && (new_shortname || tr.comm_changed);
    if (line_.announce) tr.comm_changed = false;
    line_.shortname[0] = tr.shortname[0];
    line_.shortname[1] = tr.shortname[1];
    line_.comm = threads_.comm(in_thread);
    line_.tid = threads_.tid(in_thread);
    line_.colored_task = colored(in_thread);
    line_.new_cpu = o_.compact && new_cpu ? static_cast<int>(this_cpu) : -1;
    sink_.line(line_);
  }

  const SchedMapOptions& o_;
  SchedThreads& threads_;
  SchedMapSink& sink_;
  uint32_t max_cpu_;
  char next1_ = 'A', next2_ = '0';
  std::vector<MapThread> map_threads_;
  std::vector<uint32_t> curr_thread_;
  std::vector<bool> seen_;
  std::vector<uint32_t> compact_cpus_;
  std::vector<int64_t> curr_pid_;
  SchedMapLine line_;
};

}  // namespace

Result<SchedMapStats> sched_map(const SchedMapOptions& options, SchedMapSink& sink,
                                Diagnostics& diagnostics) {
  SchedThreads threads;
  MapHandler handler(options, threads, sink);
  auto facts = SchedReplay::run(options.input_path, threads, handler, diagnostics);
  if (!facts) return tl::unexpected(facts.error());
  SchedMapStats stats = handler.stats;
  stats.nr_events = facts->nr_events;
  stats.nr_lost_events = facts->lost_events;
  stats.nr_lost_chunks = facts->lost_chunks;
  return stats;
}

}  // namespace sonde::analysis
