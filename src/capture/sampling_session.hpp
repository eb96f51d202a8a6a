#pragma once
// Sampling mode (perf record): every event opened on every CPU for the target (a workload's
// process tree, existing threads, or the whole system), one ring buffer per CPU that the other
// events of that CPU write into, drained in order.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "base/unique_fd.hpp"
#include "kernel/perf_event.hpp"
#include "kernel/ring_buffer.hpp"

namespace sonde::capture {

struct SamplingTarget {
  enum class Kind { workload, threads, system };
  Kind kind = Kind::workload;
  std::vector<pid_t> tids;  // the workload's pid, or -p/-t threads
  std::vector<int> cpus;    // the CPUs to sample on (all online CPUs unless -C)
  int cgroup_fd = -1;       // system: only tasks in this cgroup (-G), else -1
};

class SamplingSession {
 public:
  // Opens every attr on every (cpu, thread) slot, disabled (a workload's start at its exec), sets
  // each tracepoint's filter (filters[i] for attrs[i], empty for none), and maps `mmap_pages`
  // data pages per CPU. A BPF output event is opened once per CPU for every task, enabled: BPF
  // programs write to it on the CPU they run on. Attrs that write backward (perf record
  // --overwrite) get flight-recorder buffers, which drain() snapshots and wait() does not watch.
  // `group_leaders[i]`: attr i's group leader (i itself when alone; empty: no groups).
  static Result<SamplingSession> open(const std::vector<perf_event_attr>& attrs,
                                      const std::vector<std::string>& filters, const SamplingTarget& target,
                                      size_t mmap_pages, const std::vector<int>& group_leaders = {});
  SamplingSession(SamplingSession&&) noexcept = default;

  // The kernel's sample ids of each attr, for the file's attr section.
  const std::vector<std::vector<uint64_t>>& ids() const { return ids_; }
  // A BPF output attr's fd on each CPU, as (cpu, fd); empty for other attrs.
  std::vector<std::pair<int, int>> cpu_fds(size_t attr) const {
    return attr < cpu_fds_.size() ? cpu_fds_[attr] : std::vector<std::pair<int, int>>{};
  }
  // Which events enable/disable act on: perf's dummy tracking event (side-band only, for -D) or
  // the sampling ones.
  enum class Events { all, tracking, sampling };
  Result<void> enable(Events which = Events::all);
  void disable(Events which = Events::all);
  // Waits until a buffer has data or `timeout` passes.
  void wait(std::chrono::milliseconds timeout) const;
  // Makes wait() return when `other`'s buffers have data too.
  Result<void> watch(const SamplingSession& other);
  // Hands every record now in the buffers to sink(data, size); the bytes drained.
  template <typename Sink>
  size_t drain(Sink&& sink) {
    size_t total = 0;
    for (auto& buffer : buffers_) total += buffer.backward() ? buffer.snapshot(sink) : buffer.drain(sink);
    return total;
  }

 private:
  SamplingSession() = default;
  std::vector<kernel::PerfEventFd> fds_;
  std::vector<bool> fd_tracks_;  // fds_[i] is a dummy tracking event
  std::vector<kernel::RingBuffer> buffers_;
  std::vector<std::vector<uint64_t>> ids_;
  std::vector<std::vector<std::pair<int, int>>> cpu_fds_;
  UniqueFd epoll_;
};

}  // namespace sonde::capture
