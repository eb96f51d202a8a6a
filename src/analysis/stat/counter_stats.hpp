#pragma once
// Turning raw counter readings into the numbers perf stat prints: multiplexing scaled by
// time_enabled/time_running, sums over CPUs or threads, and the spread over -r repeats.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernel/perf_event.hpp"

namespace sonde::analysis {

// One counter's value for one aggregation unit (the whole target, one CPU, one thread).
struct CounterValue {
  double value = 0;  // scaled to the full enabled time
  uint64_t raw = 0;  // as read
  uint64_t enabled = 0;
  uint64_t running = 0;
  bool supported = true;
  // Counted for part of the time only (multiplexed): perf's "(xx.xx%)" column.
  double running_percent() const {
    return enabled ? 100.0 * static_cast<double>(running) / static_cast<double>(enabled) : 0;
  }
  bool counted() const { return supported && running > 0; }
};

// Sums the given readings and scales the sum as perf does (value * enabled / running), unless
// `scale` is false (--no-scale).
CounterValue aggregate(const std::vector<kernel::CounterReading>& readings, bool supported,
                       bool scale = true);
CounterValue aggregate_one(const kernel::CounterReading& reading, bool supported, bool scale = true);
// The difference between two cumulative readings, for interval output (-I).
kernel::CounterReading difference(const kernel::CounterReading& now, const kernel::CounterReading& before);

// Welford's running mean and variance over -r repeats.
class RunningStats {
 public:
  void add(double value);
  size_t count() const { return count_; }
  double mean() const { return mean_; }
  // perf's "+- x.xx%": the standard error of the mean relative to the mean, in percent.
  double relative_stddev_percent() const;
  // The standard error of the mean itself (perf's CSV variance field is this in percent).
  double stddev_of_mean() const;

 private:
  size_t count_ = 0;
  double mean_ = 0;
  double m2_ = 0;
};

}  // namespace sonde::analysis
