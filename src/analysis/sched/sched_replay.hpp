#pragma once
// A `perf sched record` file replayed for perf sched's analyses: the scheduler tracepoints'
// samples decoded into SchedSample (fields read at offsets found once per event from the
// file's formats) and perf's model of the threads they name (SchedThreads: pid, comm, parent,
// kept up to date from the COMM and FORK records in time order, a reused tid a new thread).
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "session/machine.hpp"

namespace sonde::analysis {

// `other`: a sample of any other event (perf's timehist still counts its CPU).
enum class SchedKind : uint8_t {
  sched_switch,
  wakeup,
  waking,
  wakeup_new,
  migrate_task,
  stat_runtime,
  other
};

struct SchedSample {
  SchedKind kind = SchedKind::sched_switch;
  uint64_t time = 0;
  uint32_t cpu = 0;
  int32_t sample_pid = 0, sample_tid = 0;  // PERF_SAMPLE_TID: the task the event fired in
  bool has_callchain = false;
  // The callchain placed in maps, leaf first (only when SchedReplay::run was asked for it).
  std::span<const session::Location> callchain;
  // sched_switch (next_comm and prev_comm only when SchedReplay::run keeps comms)
  int32_t prev_pid = 0, next_pid = 0;
  int64_t prev_state = 0;
  std::string_view next_comm, prev_comm;
  // sched_wakeup*, sched_waking, sched_migrate_task, sched_stat_runtime: the task named (comm
  // only when kept)
  int32_t pid = 0;
  std::string_view comm;
  int32_t orig_cpu = 0, dest_cpu = 0;  // sched_migrate_task
  uint64_t runtime = 0;                // sched_stat_runtime
};

// perf's threads as perf sched sees them: found or created by tid ("findnew"), a created one
// named ":TID" until a COMM names it. Each thread has a dense id for the analyses' own tables;
// a FORK that reuses a live tid retires the old thread (its id keeps its last name).
class SchedThreads {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  SchedThreads();
  // perf's machine__findnew_thread(pid, tid): a known thread whose pid is unknown (-1) takes `pid`.
  uint32_t findnew(int32_t pid, int32_t tid);
  uint32_t find(int32_t tid) const {
    if (tid < 0) return tid == -1 ? minus_one_ : kNone;
    return static_cast<size_t>(tid) < by_tid_.size() ? by_tid_[tid] : kNone;
  }
  int32_t tid(uint32_t id) const { return threads_[id].tid; }
  int32_t pid(uint32_t id) const { return threads_[id].pid; }
  int32_t ppid(uint32_t id) const { return threads_[id].ppid; }
  const std::string& comm(uint32_t id) const { return threads_[id].comm; }
  bool comm_set(uint32_t id) const { return threads_[id].comm_set; }
  bool exited(uint32_t id) const { return threads_[id].exited; }
  size_t size() const { return threads_.size(); }
  // The ids of the threads still known, as perf's machine__for_each_thread visits them: by
  // tid % 256, then by tid.
  std::vector<uint32_t> in_machine_order() const;

  // Side-band, as perf's machine applies it. Both return the id the record named.
  uint32_t apply_comm(int32_t pid, int32_t tid, std::string_view comm);
  uint32_t apply_fork(int32_t pid, int32_t tid, int32_t ppid, int32_t ptid);
  void apply_exit(int32_t tid);

 private:
  struct Thread {
    int32_t pid = -1, tid = -1, ppid = -1;
    std::string comm;
    bool comm_set = false;
    bool exited = false;
  };
  void index(int32_t tid, uint32_t id);
  std::vector<Thread> threads_;
  std::vector<uint32_t> by_tid_;
  uint32_t minus_one_ = kNone;  // tid -1: the kernel's name for a task already unhashed at exit
};

// What an analysis does with the replay. Side-band callbacks come after SchedThreads applied it.
class SchedHandler {
 public:
  virtual ~SchedHandler() = default;
  virtual void on_sched(const SchedSample& sample) = 0;
  // Which samples on_sched wants (asked once the file's facts are known): the others are
  // dropped unread. A sample of a kind not wanted still comes, as `other`, when its CPU is at
  // least other_from_cpu() (timehist widens its CPU columns by any sample's CPU).
  virtual bool wants(SchedKind /*kind*/) const { return true; }
  virtual uint32_t other_from_cpu() const { return 0; }
  // A COMM record; `sample_tid` is its sample_id's tid (0 for the side-band synthesized at the
  // start, whose trailer is zeros).
  virtual void on_comm(uint32_t /*thread*/, int32_t /*sample_tid*/) {}
  virtual void on_lost(uint64_t /*time*/, uint32_t /*cpu*/, uint64_t /*lost*/) {}
  // A FORK record, after the machine applied it: the child's and the parent's ids.
  virtual void on_fork(uint32_t /*child*/, uint32_t /*parent*/) {}
};

struct SchedFileFacts {
  uint32_t nr_cpus_online = 0;  // the file's NRCPUS feature (0: absent)
  bool has_switch = false;      // sched:sched_switch was recorded
  bool has_waking = false;      // sched:sched_waking was recorded (perf then ignores sched_wakeup)
  bool switch_has_callchain = false;
  uint64_t nr_events = 0;    // every record of the file, perf's nr_events[0]
  uint64_t lost_events = 0;  // summed PERF_RECORD_LOST counts
  uint64_t lost_chunks = 0;  // PERF_RECORD_LOST records
};

// Replays `path` (perf's ordered events) into `handler`; `threads` is updated as records come.
// `before` runs once the file's facts are known and before the first event. Files are read by
// sched_scan's single pass, or the Session where the scan cannot read them or where `callchains`
// (the samples' callchains placed in the maps of their process) are wanted and recorded. `keep_comms`: the
// samples' next_comm and comm are wanted (otherwise they may be left empty). Fails when the file holds no
// sched tracepoints with their payloads, and for pipes.
class SchedReplay {
 public:
  static Result<SchedFileFacts> run(const std::string& path, SchedThreads& threads, SchedHandler& handler,
                                    Diagnostics& diagnostics,
                                    const std::function<Result<void>(const SchedFileFacts&)>& before = {},
                                    bool keep_comms = false, bool callchains = false);
};

}  // namespace sonde::analysis
