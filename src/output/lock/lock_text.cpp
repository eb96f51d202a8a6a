#include "output/lock/lock_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace sonde::output {

namespace {

using analysis::LockField;

struct Column {
  std::string_view header;
  int width;
  bool time;
};

Column column_of(LockField field) {
  switch (field) {
    case LockField::acquired:
      return {"acquired", 10, false};
    case LockField::contended:
      return {"contended", 10, false};
    case LockField::avg_wait:
      return {"avg wait", 12, true};
    case LockField::wait_total:
      return {"total wait", 12, true};
    case LockField::wait_max:
      return {"max wait", 12, true};
    case LockField::wait_min:
      return {"min wait", 12, true};
  }
  return {"", 10, false};
}

}  // namespace

void append_lock_wait(std::string& out, uint64_t nanoseconds, int width) {
  // perf's units, compared and divided in float as perf does.
  struct Unit {
    float base;
    std::string_view name;
  };
  static constexpr Unit kUnits[] = {{3600e9f, "h "}, {60e9f, "m "}, {1e9f, "s "}, {1e6f, "ms"}, {1e3f, "us"}};
  auto it = std::back_inserter(out);
  const auto value = static_cast<float>(nanoseconds);
  for (const Unit& unit : kUnits) {
    if (value < unit.base) continue;
    fmt::format_to(it, "{:>{}.2f} {}", static_cast<double>(value / unit.base), width - 3, unit.name);
    return;
  }
  fmt::format_to(it, "{:>{}} ns", nanoseconds, width - 3);
}

namespace {

void append_field_headers(const std::vector<LockField>& fields, std::string& out) {
  auto it = std::back_inserter(out);
  for (LockField field : fields) {
    Column column = column_of(field);
    fmt::format_to(it, "{:>{}} ", column.header, column.width);
  }
}

void append_fields(const analysis::LockStat& stat, const std::vector<LockField>& fields, std::string& out) {
  for (LockField field : fields) {
    Column column = column_of(field);
    if (column.time)
      append_lock_wait(out, stat.value(field), column.width);
    else
      fmt::format_to(std::back_inserter(out), "{:>{}}", stat.value(field), column.width);
    out += ' ';
  }
}

// perf's debug footer: shown on broken sequences, or always with -v.
void append_bad_events(const analysis::LockContention& contention, int bad, int total,
                       const LockTextOptions& options, std::string& out) {
  auto it = std::back_inserter(out);
  int broken = 0;
  for (int count : contention.bad_histogram) broken += count;
  if (options.quiet || (broken == 0 && !options.verbose)) return;
  out += "\n=== output for debug===\n\n";
  fmt::format_to(it, "bad: {}, total: {}\n", bad, total);
  fmt::format_to(it, "bad rate: {:.2f} %\n", static_cast<double>(bad) / static_cast<double>(total) * 100);
  out += "histogram of events caused bad sequence\n";
  constexpr std::string_view kNames[] = {"acquire", "acquired", "contended", "release"};
  for (size_t i = 0; i < contention.bad_histogram.size(); ++i)
    fmt::format_to(it, " {:>10}: {}\n", kNames[i], contention.bad_histogram[i]);
}

}  // namespace

void append_lock_report(const analysis::LockContention& contention, const LockTextOptions& options,
                        std::string& out) {
  auto it = std::back_inserter(out);
  if (!options.quiet) {
    fmt::format_to(it, "{:>20} ", "Name");
    append_field_headers(options.fields, out);
    out += "\n\n";
  }
  int bad = 0, total = 0, printed = 0;
  for (const analysis::LockStat& stat : contention.stats) {
    ++total;
    if (stat.broken) ++bad;
    if (stat.nr_acquired == 0) continue;
    if (stat.name.size() < 20)
      fmt::format_to(it, "{:>20} ", stat.name);
    else
      fmt::format_to(it, "{:>20} ", stat.name.substr(0, 16) + "...");
    append_fields(stat, options.fields, out);
    out += '\n';
    if (++printed >= options.entries) break;
  }
  append_bad_events(contention, bad, total, options, out);
}

void append_lock_threads(const analysis::LockContention& contention, std::string& out) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{:>10}: comm\n", "Thread ID");
  for (const auto& [tid, comm] : contention.threads) fmt::format_to(it, "{:>10}: {}\n", tid, comm);
}

void append_lock_map(const analysis::LockContention& contention, std::string& out) {
  std::vector<const analysis::LockStat*> locks;
  for (const analysis::LockStat& stat : contention.stats) locks.push_back(&stat);
  std::sort(locks.begin(), locks.end(), [](const analysis::LockStat* a, const analysis::LockStat* b) {
    return a->name != b->name ? a->name < b->name : a->key < b->key;
  });
  out += "Address of instance: name of class\n";
  for (const analysis::LockStat* lock : locks)
    fmt::format_to(std::back_inserter(out), " {:#x}: {}\n", lock->key, lock->name);
}

void append_lock_contention(const analysis::LockContention& contention, const LockTextOptions& options,
                            std::string& out) {
  auto it = std::back_inserter(out);
  if (!options.quiet) {
    append_field_headers(options.fields, out);
    fmt::format_to(it, "  {:>10}   {}\n\n", options.threads ? "pid" : "type",
                   options.threads ? "comm" : "caller");
  }
  int bad = contention.measured_in_kernel ? contention.bad_histogram[2] : 0, total = 0, printed = 0;
  for (const analysis::LockStat& stat : contention.stats) {
    total += contention.measured_in_kernel ? static_cast<int>(stat.nr_contended) : 1;
    if (stat.broken) ++bad;
    append_fields(stat, options.fields, out);
    if (options.threads)
      fmt::format_to(it, "  {:>10}   {}\n", static_cast<int32_t>(stat.key), stat.name);
    else
      fmt::format_to(it, "  {:>10}   {}\n", analysis::lock_type_name(stat.flags), stat.name);
    if (options.verbose && !options.threads)
      for (const auto& [ip, name] : stat.callstack) {
        if (ip == 0) break;
        fmt::format_to(it, "\t\t\t{:#x}  {}\n", ip, name);
      }
    if (++printed >= options.entries) break;
  }
  append_bad_events(contention, bad, total, options, out);
}

}  // namespace sonde::output
