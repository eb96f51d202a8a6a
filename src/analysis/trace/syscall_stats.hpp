#pragma once
// What a trace summary knows about system calls: per thread, per syscall, the calls, failures
// and their durations. Filled from the tracer's in-kernel maps (summary-only runs copy nothing
// per call) or from replayed events; printed by output/trace's summary tables.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sonde::analysis {

struct SyscallStats {
  uint64_t calls = 0;
  uint64_t errors = 0;  // calls that returned -1 with errno set (a return in [-4095, -1])
  uint64_t total_ns = 0;
  uint64_t min_ns = 0;  // meaningful when calls > 0
  uint64_t max_ns = 0;
  // Sum of squared durations in ns², for the standard deviation (long double: 1 s² is 1e18).
  long double sum_squares_ns2 = 0;
  std::map<int, uint64_t> errnos;  // errno (positive) -> failed calls, for --errno-summary
  // The mean as perf's update_stats keeps it, a running double (mean += (x - mean) / n): its
  // rounding, not the exact total's, decides perf's last digit of "total" and "avg".
  double running_mean_ns = 0;

  void add(uint64_t duration_ns, int64_t ret);
  void merge(const SyscallStats& other);
  double average_ns() const { return running_mean_ns; }
  // perf trace's "stddev (%)": the standard error of the mean, as a percentage of the mean
  // (perf's stddev_stats over rel_stddev_stats); 0 for fewer than two calls.
  double relative_stddev_percent() const;
};

struct SyscallRow {
  int number = -1;
  std::string name;  // as perf trace names it ("newfstatat", "pread64")
  SyscallStats stats;
};

struct ThreadSyscalls {
  pid_t tid = 0;
  std::string comm;
  // perf trace counts an enter and an exit as two events; an exit it finds no syscall for
  // (rt_sigreturn's, id -1) is counted in total_events but not in the thread's.
  uint64_t events = 0;
  std::vector<SyscallRow> syscalls;
  uint64_t majfaults = 0;  // -F maj/all: printed after the events when not 0
  uint64_t minfaults = 0;  // -F min/all
  double runtime_ms = 0;   // --sched: the thread's sched_stat_runtime, printed for every thread
};

struct SyscallSummary {
  std::vector<ThreadSyscalls> threads;
  uint64_t total_events = 0;  // over every thread, for each thread's share in percent
};

// The summary's syscalls over all threads, merged by syscall (strace -c's view), in ascending
// syscall number (rows without a number, -1, by name first).
std::vector<SyscallRow> merge_threads(const SyscallSummary& summary);

}  // namespace sonde::analysis
