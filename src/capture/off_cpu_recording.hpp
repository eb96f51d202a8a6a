#pragma once
// perf record --off-cpu: the offcpu-time event and its samples. Each sample is one block of a
// thread (or the total of its short blocks with the same stacks), its period the time blocked in
// ns, its callchain the thread's kernel and user stacks where it went to sleep. Long blocks come
// out of the BPF program through the event itself, as they end (the perf sample carrying them
// gives the time and CPU); here they become samples in perf's layout. Short ones are written at
// the end, stamped after everything else, as perf 6.1 writes all of its off-CPU samples.
#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "capture/sampling_session.hpp"
#include "events/event_spec.hpp"
#include "kernel/off_cpu_profiler.hpp"

namespace sonde::capture {

// perf's event name, and its default threshold (newer perf's --off-cpu-thresh, in ms).
inline constexpr const char* kOffCpuEventName = "offcpu-time";
// Two events sonde adds that exist in the file only (their attrs carry ids the kernel never hands
// out). offcpu-preempted: the time a thread waited for a CPU after being preempted, which perf
// leaves out of offcpu-time (its samples as offcpu-time's). offcpu-waker, with --wakers: each
// offcpu-time sample is followed by one of it, stamped the same, for the thread that woke the
// blocked one: its tid, its stacks where it did, the blocked time as period, and the woken
// thread's tid as the sample's address.
inline constexpr const char* kOffCpuPreemptedEventName = "offcpu-preempted";
inline constexpr const char* kOffCpuWakerEventName = "offcpu-waker";

struct FileOnlyEvent {
  perf_event_attr attr{};
  std::string name;
  uint64_t id = 0;
};
inline constexpr uint64_t kOffCpuDefaultThresholdMs = 500;

// The event record adds: a BPF output software event.
events::EventSpec off_cpu_event();

// The attr the file declares for the event, from the one record_attrs made: perf's off-CPU
// sample types, with the callchain always (a block without its stack says little) and the weight
// (the state slept in: 1 S, 2 D; perf shows it only when asked, with --sort weight).
perf_event_attr off_cpu_file_attr(perf_event_attr recorded);
// The attr opened: the file's, carrying the BPF program's record as raw data instead.
perf_event_attr off_cpu_opened_attr(const perf_event_attr& file_attr);

struct OffCpuSettings {
  uint64_t threshold_ms = kOffCpuDefaultThresholdMs;
  bool follow_children = true;
  bool wakers = false;  // --wakers
  // Kernel text ranges [start, end) of the tracepoint's calling glue (__traceiter_sched_switch
  // and the like): some kernels put one of its frames above __schedule in every stack the
  // program takes. Leading frames inside them are dropped, so stacks end at the scheduler.
  std::vector<std::pair<uint64_t, uint64_t>> tracepoint_glue;
};

class OffCpuRecording {
 public:
  // Loads the BPF program (nothing runs yet).
  static Result<OffCpuRecording> open(const OffCpuSettings& settings, const SamplingTarget& target,
                                      const perf_event_attr& file_attr, const perf_event_attr& opened_attr);
  // Connects the event's per-CPU fds (attr `index` of the session), follows the target and
  // starts measuring: before the workload starts.
  Result<void> start(const SamplingSession& session, size_t index, pid_t workload_pid);
  // A drained record: when it is the event's, its off-CPU sample in perf's layout goes to `out`
  // and true is returned; other records are left alone.
  bool rewrite(const void* data, size_t size, std::string& out);
  // Stops measuring; the short blocks' totals as samples.
  Result<std::string> finish();
  uint64_t lost() const { return profiler_.lost(); }
  // The file-only events, for the file's attr section.
  std::vector<FileOnlyEvent> file_only_events() const;

 private:
  OffCpuRecording(kernel::OffCpuProfiler profiler) : profiler_(std::move(profiler)) {}
  Result<std::string> sample(const perf_event_attr& attr, uint32_t pid, uint32_t tid, int32_t kernel_stack,
                             int32_t user_stack, uint64_t blocked_ns, uint64_t time, uint32_t cpu,
                             uint64_t id, uint64_t addr, uint64_t weight);

  kernel::OffCpuProfiler profiler_;
  SamplingTarget target_;
  Result<void> append_sample(const kernel::OffCpuKey& key, uint64_t blocked_ns, uint64_t time, uint32_t cpu,
                             uint64_t id, std::string& out);

  bool wakers_ = false;
  std::vector<std::pair<uint64_t, uint64_t>> tracepoint_glue_;
  perf_event_attr file_attr_{}, opened_attr_{}, waker_attr_{};
  std::unordered_set<uint64_t> ids_;
  uint64_t first_id_ = 0;
  std::vector<uint64_t> chain_;
};

}  // namespace sonde::capture
