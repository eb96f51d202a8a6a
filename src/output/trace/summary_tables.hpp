#pragma once
// The summaries a trace prints at its end: perf trace -s's per-thread tables ("Summary of
// events:"), with --errno-summary's per-errno lines, and strace -c's one table.
#include <string>
#include <string_view>

#include "analysis/trace/syscall_stats.hpp"
#include "base/error.hpp"

namespace sonde::output {

struct PerfSummaryOptions {
  bool errno_summary = false;  // --errno-summary
  bool sched = false;          // --sched: ", RUNTIME msec" after each thread's share
  // --sort: comma-separated keys, the first deciding, the next breaking its ties: calls,
  // errors, total, min, avg, max, stddev (largest first) and name (alphabetical); remaining
  // ties keep perf's default order (total msec, largest first, then syscall number). perf 6.1
  // has no --sort: empty is its order. Keys are checked by check_perf_summary_sort; an unknown
  // key is ignored here.
  std::string_view sort;
};

// perf trace -s / -S's text, from "\n Summary of events:\n" on (perf writes it to stderr).
// Threads in perf 6.1's order: by tid % 256 (its thread hash buckets), then fewest events
// first, then tid. A thread with no events and no syscalls is left out (perf has no trace
// state for it); one with events but no syscalls prints the column headers and no rows.
// Shares are of summary.total_events (of the threads' events when that is 0).
std::string perf_trace_summary(const analysis::SyscallSummary& summary, const PerfSummaryOptions& options);

// Whether `sort` is a list of keys perf_trace_summary knows; the error names the first one it
// does not.
Result<void> check_perf_summary_sort(std::string_view sort);

// strace -c's table ("% time     seconds  usecs/call     calls    errors syscall"), every
// thread together, sorted as strace 6.1 sorts by -S SORTBY: time (the default, also when
// empty), calls, errors, name, min-time, max-time, avg-time, none, or any of strace's aliases
// of these (count, total-time, shortest, longest, syscall, nothing...); ties in ascending
// syscall number. Empty text when no call was counted, as strace prints nothing then.
std::string strace_summary(const analysis::SyscallSummary& summary, std::string_view sort_by = {});

// Whether strace's -S takes `sort_by`; the error is strace's "invalid sortby: 'X'".
Result<void> check_strace_sort(std::string_view sort_by);

}  // namespace sonde::output
