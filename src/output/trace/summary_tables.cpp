#include "output/trace/summary_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <vector>

#include "base/strings.hpp"

namespace sonde::output {

namespace {

using analysis::SyscallRow;
using analysis::SyscallStats;
using analysis::ThreadSyscalls;

// ---- perf trace -s ----

// perf 6.1 keeps threads in 256 hash buckets by tid (THREADS__TABLE_SIZE) and prints bucket
// after bucket, each sorted by its events.
constexpr unsigned kPerfThreadBuckets = 256;
constexpr double kNsPerMsec = 1e6;

enum class PerfSortKey { calls, errors, total, min, avg, max, stddev, name };

struct PerfSortName {
  std::string_view name;
  PerfSortKey key;
};

constexpr std::array<PerfSortName, 8> kPerfSortKeys{{
    {"calls", PerfSortKey::calls},
    {"errors", PerfSortKey::errors},
    {"total", PerfSortKey::total},
    {"min", PerfSortKey::min},
    {"avg", PerfSortKey::avg},
    {"max", PerfSortKey::max},
    {"stddev", PerfSortKey::stddev},
    {"name", PerfSortKey::name},
}};

std::optional<PerfSortKey> perf_sort_key(std::string_view name) {
  for (const auto& entry : kPerfSortKeys)
    if (entry.name == name) return entry.key;
  return std::nullopt;
}

// The comma-separated keys of a --sort value, blanks trimmed, empty ones dropped.
std::vector<std::string_view> sort_words(std::string_view sort) {
  std::vector<std::string_view> words;
  while (!sort.empty()) {
    const size_t comma = sort.find(',');
    std::string_view word = trim(sort.substr(0, comma));
    if (!word.empty()) words.push_back(word);
    sort = comma == std::string_view::npos ? std::string_view() : sort.substr(comma + 1);
  }
  return words;
}

// The "total (msec)" column as perf computes it, calls times the mean (not the sum itself):
// its rows are sorted by this double.
double perf_total_msec(const SyscallStats& stats) {
  return static_cast<double>(stats.calls) * (stats.average_ns() / kNsPerMsec);
}

// < 0 when a goes before b by this key alone.
int compare_by(PerfSortKey key, const SyscallRow& a, const SyscallRow& b) {
  auto descending = [](auto x, auto y) { return x > y ? -1 : (x < y ? 1 : 0); };
  switch (key) {
    case PerfSortKey::calls:
      return descending(a.stats.calls, b.stats.calls);
    case PerfSortKey::errors:
      return descending(a.stats.errors, b.stats.errors);
    case PerfSortKey::total:
      return descending(perf_total_msec(a.stats), perf_total_msec(b.stats));
    case PerfSortKey::min:
      return descending(a.stats.min_ns, b.stats.min_ns);
    case PerfSortKey::avg:
      return descending(a.stats.average_ns(), b.stats.average_ns());
    case PerfSortKey::max:
      return descending(a.stats.max_ns, b.stats.max_ns);
    case PerfSortKey::stddev:
      return descending(a.stats.relative_stddev_percent(), b.stats.relative_stddev_percent());
    case PerfSortKey::name:
      return a.name.compare(b.name);
  }
  return 0;
}

// perf's order: total msec, largest first (a resorted red-black tree where ties go right, so
// ties keep the syscall-number order of the intlist it was filled from).
bool perf_default_before(const SyscallRow& a, const SyscallRow& b) {
  if (int order = compare_by(PerfSortKey::total, a, b); order != 0) return order < 0;
  if (a.number != b.number) return a.number < b.number;
  return a.name < b.name;
}

std::vector<const SyscallRow*> perf_rows(const ThreadSyscalls& thread, const std::vector<PerfSortKey>& keys) {
  std::vector<const SyscallRow*> rows;
  for (const auto& row : thread.syscalls)
    if (row.stats.calls > 0) rows.push_back(&row);
  std::sort(rows.begin(), rows.end(), [&](const SyscallRow* a, const SyscallRow* b) {
    for (PerfSortKey key : keys)
      if (int order = compare_by(key, *a, *b); order != 0) return order < 0;
    return perf_default_before(*a, *b);
  });
  return rows;
}

// perf's errno names: the x86-64 kernel's E* constants (the same names glibc gives them),
// "(unknown)" for numbers without one (41, 58, kernel-internal ones as ERESTARTSYS).
std::string_view errno_name(int err) {
  const char* name = strerrorname_np(err);
  return name ? std::string_view(name) : std::string_view("(unknown)");
}

void append_perf_thread(std::string& text, const ThreadSyscalls& thread, double total_events,
                        const PerfSummaryOptions& options, const std::vector<PerfSortKey>& keys) {
  const double ratio = total_events > 0 ? static_cast<double>(thread.events) / total_events * 100.0 : 0.0;
  text += fmt::format(" {} ({}), {} events, {:.1f}%", thread.comm, thread.tid, thread.events, ratio);
  if (thread.majfaults) text += fmt::format(", {} majfaults", thread.majfaults);
  if (thread.minfaults) text += fmt::format(", {} minfaults", thread.minfaults);
  if (options.sched) text += fmt::format(", {:.3f} msec", thread.runtime_ms);
  text += '\n';

  text += '\n';
  text += "   syscall            calls  errors  total       min       avg       max       stddev\n";
  text += "                                     (msec)    (msec)    (msec)    (msec)        (%)\n";
  text += "   --------------- --------  ------ -------- --------- --------- ---------     ------\n";
  for (const SyscallRow* row : perf_rows(thread, keys)) {
    const SyscallStats& stats = row->stats;
    text += fmt::format("   {:<15} {:>8} {:>6} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.2f}%\n", row->name,
                        stats.calls, stats.errors, perf_total_msec(stats),
                        static_cast<double>(stats.min_ns) / kNsPerMsec, stats.average_ns() / kNsPerMsec,
                        static_cast<double>(stats.max_ns) / kNsPerMsec, stats.relative_stddev_percent());
    if (options.errno_summary && stats.errors > 0)
      for (const auto& [err, count] : stats.errnos)
        if (count > 0) text += fmt::format("\t\t\t\t{}: {}\n", errno_name(err), count);
  }
  text += "\n\n";
}

// ---- strace -c ----

constexpr uint64_t kNsPerSec = 1'000'000'000;

// strace keeps times as timespecs and turns them into doubles as sec + nsec / 1e9
// (ts_float); the same steps give the same roundings.
double timespec_seconds(uint64_t ns) {
  return static_cast<double>(ns / kNsPerSec) + static_cast<double>(ns % kNsPerSec) / 1e9;
}

// strace's ts_div: the mean in ns, rounded to nearest.
uint64_t timespec_average_ns(uint64_t total_ns, uint64_t calls) {
  const uint64_t seconds = total_ns / kNsPerSec;
  const uint64_t nsec = (seconds % calls * kNsPerSec + total_ns % kNsPerSec + calls / 2) / calls;
  return (seconds / calls + nsec / kNsPerSec) * kNsPerSec + nsec % kNsPerSec;
}

// usecs/call: the mean in seconds as a double times 1e6, truncated (29 µs can print as 28).
uint64_t usecs_per_call(double seconds) { return static_cast<uint64_t>(seconds * 1e6); }

enum class StraceSort { none, time, min_time, max_time, avg_time, calls, errors, name };

struct StraceSortName {
  std::string_view name;
  StraceSort sort;
};

// strace 6.1's column aliases, which -S takes.
constexpr std::array<StraceSortName, 31> kStraceSortNames{{
    {"time", StraceSort::time},         {"time_percent", StraceSort::time},
    {"time-percent", StraceSort::time}, {"time_total", StraceSort::time},
    {"time-total", StraceSort::time},   {"total_time", StraceSort::time},
    {"total-time", StraceSort::time},   {"min_time", StraceSort::min_time},
    {"min-time", StraceSort::min_time}, {"shortest", StraceSort::min_time},
    {"time_min", StraceSort::min_time}, {"time-min", StraceSort::min_time},
    {"longest", StraceSort::max_time},  {"max_time", StraceSort::max_time},
    {"max-time", StraceSort::max_time}, {"time_max", StraceSort::max_time},
    {"time-max", StraceSort::max_time}, {"avg_time", StraceSort::avg_time},
    {"avg-time", StraceSort::avg_time}, {"time_avg", StraceSort::avg_time},
    {"time-avg", StraceSort::avg_time}, {"calls", StraceSort::calls},
    {"count", StraceSort::calls},       {"error", StraceSort::errors},
    {"errors", StraceSort::errors},     {"name", StraceSort::name},
    {"syscall", StraceSort::name},      {"syscall_name", StraceSort::name},
    {"syscall-name", StraceSort::name}, {"none", StraceSort::none},
    {"nothing", StraceSort::none},
}};

std::optional<StraceSort> strace_sort(std::string_view name) {
  if (name.empty()) return StraceSort::time;
  for (const auto& entry : kStraceSortNames)
    if (entry.name == name) return entry.sort;
  return std::nullopt;
}

struct StraceRow {
  const SyscallRow* row;
  uint64_t average_ns;
};

// strace sorts the syscall table's indices with glibc 2.36's qsort, a merge sort: stable, so
// ties stay in syscall-number order. Its calls and errors comparisons are on unsigned ints.
void sort_strace_rows(std::vector<StraceRow>& rows, StraceSort sort) {
  auto by = [&rows](auto key) {
    std::stable_sort(rows.begin(), rows.end(),
                     [&key](const StraceRow& a, const StraceRow& b) { return key(a, b); });
  };
  switch (sort) {
    case StraceSort::none:
      return;
    case StraceSort::time:
      return by([](const StraceRow& a, const StraceRow& b) {
        return a.row->stats.total_ns > b.row->stats.total_ns;
      });
    case StraceSort::min_time:
      return by(
          [](const StraceRow& a, const StraceRow& b) { return a.row->stats.min_ns > b.row->stats.min_ns; });
    case StraceSort::max_time:
      return by(
          [](const StraceRow& a, const StraceRow& b) { return a.row->stats.max_ns > b.row->stats.max_ns; });
    case StraceSort::avg_time:
      return by([](const StraceRow& a, const StraceRow& b) { return a.average_ns > b.average_ns; });
    case StraceSort::calls:
      return by([](const StraceRow& a, const StraceRow& b) {
        return static_cast<unsigned>(a.row->stats.calls) > static_cast<unsigned>(b.row->stats.calls);
      });
    case StraceSort::errors:
      return by([](const StraceRow& a, const StraceRow& b) {
        return static_cast<unsigned>(a.row->stats.errors) > static_cast<unsigned>(b.row->stats.errors);
      });
    case StraceSort::name:
      return by([](const StraceRow& a, const StraceRow& b) { return a.row->name < b.row->name; });
  }
}

void append_dashes(std::string& text, const std::array<size_t, 6>& widths) {
  for (size_t i = 0; i < widths.size(); ++i) {
    if (i) text += ' ';
    text.append(widths[i], '-');
  }
  text += '\n';
}

// The errors column prints 0 as blanks (strace's "%*.0llu").
std::string strace_errors(uint64_t errors, size_t width) {
  return errors ? fmt::format("{:>{}}", errors, width) : std::string(width, ' ');
}

}  // namespace

std::string perf_trace_summary(const analysis::SyscallSummary& summary, const PerfSummaryOptions& options) {
  std::vector<PerfSortKey> keys;
  for (std::string_view word : sort_words(options.sort))
    if (auto key = perf_sort_key(word)) keys.push_back(*key);

  std::vector<const ThreadSyscalls*> threads;
  uint64_t thread_events = 0;
  for (const auto& thread : summary.threads) {
    thread_events += thread.events;
    if (thread.events > 0 || !thread.syscalls.empty()) threads.push_back(&thread);
  }
  std::sort(threads.begin(), threads.end(), [](const ThreadSyscalls* a, const ThreadSyscalls* b) {
    const unsigned a_bucket = static_cast<unsigned>(a->tid) % kPerfThreadBuckets;
    const unsigned b_bucket = static_cast<unsigned>(b->tid) % kPerfThreadBuckets;
    if (a_bucket != b_bucket) return a_bucket < b_bucket;
    if (a->events != b->events) return a->events < b->events;
    return a->tid < b->tid;
  });
  const double total_events =
      static_cast<double>(summary.total_events ? summary.total_events : thread_events);

  std::string text = "\n Summary of events:\n\n";
  for (const ThreadSyscalls* thread : threads) append_perf_thread(text, *thread, total_events, options, keys);
  return text;
}

Result<void> check_perf_summary_sort(std::string_view sort) {
  for (std::string_view word : sort_words(sort))
    if (!perf_sort_key(word))
      return fail_usage(fmt::format(
          "unknown --sort key '{}' (known: calls, errors, total, min, avg, max, stddev, name)", word));
  return {};
}

std::string strace_summary(const analysis::SyscallSummary& summary, std::string_view sort_by) {
  const std::vector<SyscallRow> merged = analysis::merge_threads(summary);
  if (merged.empty()) return {};

  std::vector<StraceRow> rows;
  uint64_t total_ns = 0, calls = 0, errors = 0, max_average_ns = 0;
  size_t name_width = 0;
  for (const auto& row : merged) {
    const uint64_t average_ns = timespec_average_ns(row.stats.total_ns, row.stats.calls);
    rows.push_back(StraceRow{&row, average_ns});
    total_ns += row.stats.total_ns;
    calls += row.stats.calls;
    errors += row.stats.errors;
    max_average_ns = std::max(max_average_ns, average_ns);
    name_width = std::max(name_width, row.name.size());
  }
  sort_strace_rows(rows, strace_sort(sort_by).value_or(StraceSort::time));

  const double total_seconds = timespec_seconds(total_ns);
  // Widths: the historical ones, widened to fit the totals (and the largest mean); the name
  // column to the longest name and one more.
  const std::array<size_t, 6> widths{
      6,
      std::max<size_t>(11, fmt::format("{:.6f}", total_seconds).size()),
      std::max<size_t>(11, fmt::format("{}", usecs_per_call(timespec_seconds(max_average_ns))).size()),
      std::max<size_t>(9, fmt::format("{}", calls).size()),
      std::max<size_t>(9, fmt::format("{}", errors).size()),
      std::max<size_t>(16, name_width + 1),
  };

  std::string text =
      fmt::format("{:>{}} {:>{}} {:>{}} {:>{}} {:>{}} syscall\n", "% time", widths[0], "seconds", widths[1],
                  "usecs/call", widths[2], "calls", widths[3], "errors", widths[4]);
  append_dashes(text, widths);
  for (const auto& [row, average_ns] : rows) {
    const double seconds = timespec_seconds(row->stats.total_ns);
    double percent = 100.0 * seconds;
    if (percent != 0.0) percent /= total_seconds;
    text += fmt::format("{:>{}.2f} {:>{}.6f} {:>{}} {:>{}} {} {}\n", percent, widths[0], seconds, widths[1],
                        usecs_per_call(timespec_seconds(average_ns)), widths[2], row->stats.calls, widths[3],
                        strace_errors(row->stats.errors, widths[4]), row->name);
  }
  append_dashes(text, widths);
  text += fmt::format("{:>{}.2f} {:>{}.6f} {:>{}} {:>{}} {} total\n", 100.0, widths[0], total_seconds,
                      widths[1], usecs_per_call(total_seconds / static_cast<double>(calls)), widths[2], calls,
                      widths[3], strace_errors(errors, widths[4]));
  return text;
}

Result<void> check_strace_sort(std::string_view sort_by) {
  if (!strace_sort(sort_by)) return fail_usage(fmt::format("invalid sortby: '{}'", sort_by));
  return {};
}

}  // namespace sonde::output
