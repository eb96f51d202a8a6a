#pragma once
// RAII over one perf_event_open(2) file descriptor. No policy: callers choose the attr and target.
#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace sonde::kernel {

// One counter's value with the times perf uses to scale multiplexed counts.
struct CounterReading {
  uint64_t value = 0;
  uint64_t time_enabled = 0;
  uint64_t time_running = 0;
};

class PerfEventFd {
 public:
  PerfEventFd() = default;
  explicit PerfEventFd(int fd) : fd_(fd) {}
  PerfEventFd(PerfEventFd&& other) noexcept : fd_(other.release()) {}
  PerfEventFd& operator=(PerfEventFd&& other) noexcept;
  PerfEventFd(const PerfEventFd&) = delete;
  PerfEventFd& operator=(const PerfEventFd&) = delete;
  ~PerfEventFd();

  // Opens with PERF_FLAG_FD_CLOEXEC. On failure the error carries the errno (sys_errno), so
  // callers can tell "not supported" from "permission denied".
  // `flags` adds to PERF_FLAG_FD_CLOEXEC (PERF_FLAG_PID_CGROUP: pid is a cgroup directory fd).
  static Result<PerfEventFd> open(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd = -1,
                                  unsigned long flags = 0);

  int fd() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  Result<void> enable() const;
  Result<void> disable() const;
  Result<void> reset() const;
  Result<void> set_filter(const std::string& filter) const;
  Result<void> set_bpf(int prog_fd) const;
  Result<uint64_t> id() const;
  // Reads a counter opened with read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING.
  Result<CounterReading> read_counter() const;

 private:
  int fd_ = -1;
};

// perf record -k: a clock by perf's names (monotonic/mono, monotonic_raw/raw, realtime/real,
// boottime/boot, tai, with or without CLOCK_) or its number.
Result<int> parse_clockid(std::string_view name);

}  // namespace sonde::kernel
