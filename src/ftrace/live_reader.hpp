#pragma once
// Reads the per-CPU raw buffers live, for `sonde ftrace stream`: each round takes what every
// CPU's trace_pipe_raw holds (the page still being written included), splits the pages into
// events and hands them over in timestamp order across CPUs.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/error.hpp"
#include "base/unique_fd.hpp"
#include "ftrace/instance.hpp"

struct kbuffer;

namespace sonde::ftrace {

struct LiveEvent {
  int cpu = 0;
  unsigned long long ts = 0;
  void* data = nullptr;  // the event's payload (common fields first), valid during the callback
  int size = 0;
  long long missed_events = 0;  // events the kernel lost before this one (-1: some, count unknown)
};

class LiveReader {
 public:
  static Result<std::unique_ptr<LiveReader>> open(const Instance& instance, const std::vector<int>& cpus,
                                                  size_t page_size);
  ~LiveReader();
  // Waits up to `timeout_ms` for a buffer to fill past buffer_percent, then reads every CPU
  // (all of it, even when no buffer woke it) and calls `on_event` for each event in time order.
  // Returns how many events were delivered.
  Result<size_t> read_round(int timeout_ms, const std::function<void(const LiveEvent&)>& on_event);

 private:
  struct Cpu {
    int cpu = 0;
    UniqueFd raw;
  };
  LiveReader() = default;
  std::vector<Cpu> cpus_;
  size_t page_size_ = 4096;
  std::vector<std::vector<char>> pages_;  // this round's pages, kept alive while events point into them
  kbuffer* kbuf_ = nullptr;
};

}  // namespace sonde::ftrace
