#include "analysis/stat/counter_stats.hpp"

#include <cmath>

namespace sonde::analysis {

CounterValue aggregate(const std::vector<kernel::CounterReading>& readings, bool supported, bool scale) {
  kernel::CounterReading sum;
  for (const auto& reading : readings) {
    sum.value += reading.value;
    sum.time_enabled += reading.time_enabled;
    sum.time_running += reading.time_running;
  }
  return aggregate_one(sum, supported, scale);
}

CounterValue aggregate_one(const kernel::CounterReading& reading, bool supported, bool scale) {
  CounterValue result;
  result.supported = supported;
  result.raw = reading.value;
  result.enabled = reading.time_enabled;
  result.running = reading.time_running;
  result.value = static_cast<double>(reading.value);
  if (scale && reading.time_running > 0 && reading.time_running < reading.time_enabled)
    result.value =
        result.value * static_cast<double>(reading.time_enabled) / static_cast<double>(reading.time_running);
  return result;
}

kernel::CounterReading difference(const kernel::CounterReading& now, const kernel::CounterReading& before) {
  return {now.value - before.value, now.time_enabled - before.time_enabled,
          now.time_running - before.time_running};
}

void RunningStats::add(double value) {
  ++count_;
  double delta = value - mean_;
  mean_ += delta / static_cast<double>(count_);
  m2_ += delta * (value - mean_);
}

double RunningStats::stddev_of_mean() const {
  if (count_ < 2) return 0;
  double variance = m2_ / static_cast<double>(count_ - 1);
  return std::sqrt(variance / static_cast<double>(count_));
}

double RunningStats::relative_stddev_percent() const {
  if (mean_ == 0) return 0;
  return 100.0 * stddev_of_mean() / mean_;
}

}  // namespace sonde::analysis
