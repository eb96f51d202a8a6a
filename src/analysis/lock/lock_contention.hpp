#pragma once
// perf lock contention over a recording of lock:contention_begin and lock:contention_end: each
// wait paired by thread and lock address, its time added to an aggregate — of the contending
// call stack (perf's default), of the thread (-t) —, named by the first frame outside the
// scheduler's and the lock code's sections; the aggregates in perf 6.1's order (its hash
// table's walk, then a stable sort, largest first, by the -k key) and its count of broken
// sequences.
#include <array>
#include <climits>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::analysis {

enum class LockField { acquired, contended, avg_wait, wait_total, wait_max, wait_min };
// By call stack (contention's default), by thread (-t), by lock address (report and info).
enum class LockAggregation { caller, task, address };

struct LockOptions {
  std::string input_path = "perf.data";
  LockAggregation aggregation = LockAggregation::caller;
  LockField key = LockField::wait_total;
  int max_stack = 8;             // --max-stack: frames of a callchain looked at
  int stack_skip = 3;            // --stack-skip: frames skipped before the caller is looked for
  bool save_callstacks = false;  // -v: each aggregate's first call stack, printed under it
  std::string kallsyms = "/proc/kallsyms";
};

// -k and -F names: contended, wait_total, wait_max, wait_min, avg_wait (and acquired, for report).
Result<LockField> parse_lock_field(std::string_view name);
Result<std::vector<LockField>> parse_lock_fields(std::string_view list);

struct LockStat {
  uint64_t key = 0;    // the call stack's hash, the tid or the lock's address
  std::string name;    // the caller ("Unknown" when no frame names one); -t: the thread's comm
  uint32_t flags = 0;  // contention_begin's flags: the lock's type
  uint64_t nr_contended = 0, nr_acquired = 0;
  uint64_t wait_total = 0, wait_max = 0, wait_min = UINT64_MAX, avg_wait = 0;
  bool broken = false;
  std::vector<std::pair<uint64_t, std::string>> callstack;  // -v: address and "sym+0xoff"
  uint64_t value(LockField field) const;
};

struct LockContention {
  std::vector<LockStat> stats;  // in perf's printing order
  // The threads a contention began in, by ascending tid, with their comm at the end (info -t).
  std::vector<std::pair<int32_t, std::string>> threads;
  // Sequences broken by an event of each kind: acquire, acquired, contended, release.
  std::array<int, 4> bad_histogram{};
  // Waits totalled by the kernel's BPF tracer (contention -b): the footer counts waits, not
  // entries, and the waits the tracer could not count as broken "contended" sequences.
  bool measured_in_kernel = false;
};

// perf's name of a lock type by contention_begin's flags ("spinlock", "rwsem:R", ...).
std::string_view lock_type_name(uint32_t flags);

Result<LockContention> lock_contention(const LockOptions& options, Diagnostics& diagnostics);

// [start, end) of the kernel's .sched.text and .spinlock.text, by kallsyms' section markers:
// where perf's lock tool looks past a frame for the caller. Empty without the markers.
std::vector<std::pair<uint64_t, uint64_t>> kernel_lock_text(const std::string& kallsyms);

// report -c: entries of one name merged (counts and totals added, extremes kept), in name order
// before the stable sort by `key`.
std::vector<LockStat> combine_lock_stats(std::vector<LockStat> stats, LockField key);

}  // namespace sonde::analysis
