#include "analysis/trace/syscall_stats.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace sonde::analysis {

namespace {

// The kernel's largest errno (MAX_ERRNO): a return in [-4095, -1] is a failure.
constexpr int64_t kMaxErrno = 4095;

}  // namespace

void SyscallStats::add(uint64_t duration_ns, int64_t ret) {
  min_ns = calls == 0 ? duration_ns : std::min(min_ns, duration_ns);
  max_ns = calls == 0 ? duration_ns : std::max(max_ns, duration_ns);
  ++calls;
  total_ns += duration_ns;
  running_mean_ns += (static_cast<double>(duration_ns) - running_mean_ns) / static_cast<double>(calls);
  const auto duration = static_cast<long double>(duration_ns);
  sum_squares_ns2 += duration * duration;
  if (ret < 0 && ret >= -kMaxErrno) {
    ++errors;
    ++errnos[static_cast<int>(-ret)];
  }
}

void SyscallStats::merge(const SyscallStats& other) {
  if (other.calls == 0) return;
  min_ns = calls == 0 ? other.min_ns : std::min(min_ns, other.min_ns);
  max_ns = calls == 0 ? other.max_ns : std::max(max_ns, other.max_ns);
  running_mean_ns = (running_mean_ns * static_cast<double>(calls) +
                     other.running_mean_ns * static_cast<double>(other.calls)) /
                    static_cast<double>(calls + other.calls);
  calls += other.calls;
  errors += other.errors;
  total_ns += other.total_ns;
  sum_squares_ns2 += other.sum_squares_ns2;
  for (const auto& [err, count] : other.errnos) errnos[err] += count;
}

// perf's stddev_stats: sqrt(M2 / (n - 1) / n), M2 the sum of squared deviations from the mean
// (perf keeps it by Welford's updates; here it is sum(x²) - sum(x)²/n), over the mean.
double SyscallStats::relative_stddev_percent() const {
  if (calls < 2 || total_ns == 0) return 0.0;
  const auto n = static_cast<long double>(calls);
  const auto total = static_cast<long double>(total_ns);
  const long double m2 = std::max(sum_squares_ns2 - total * total / n, 0.0L);
  const long double standard_error = std::sqrt(m2 / (n - 1) / n);
  return static_cast<double>(100.0L * standard_error / (total / n));
}

std::vector<SyscallRow> merge_threads(const SyscallSummary& summary) {
  std::map<std::pair<int, std::string>, SyscallStats> merged;
  for (const auto& thread : summary.threads)
    for (const auto& row : thread.syscalls) merged[{row.number, row.name}].merge(row.stats);
  std::vector<SyscallRow> rows;
  rows.reserve(merged.size());
  for (auto& [key, stats] : merged) {
    if (stats.calls == 0) continue;
    rows.push_back(SyscallRow{key.first, key.second, std::move(stats)});
  }
  return rows;
}

}  // namespace sonde::analysis
