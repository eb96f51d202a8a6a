#pragma once
// perf report's -s/--sort keys that sonde knows: what each groups by and how perf orders it.
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::analysis {

enum class SortKey {
  comm,     // the thread's command name at sample time
  pid,      // the thread ("Pid:Command"; perf shows the tid)
  dso,      // the shared object
  sym,      // the function (symbol, or the address when nothing names it)
  srcline,  // file:line of the address
  parent,   // the first caller matching --parent (default ^sys_|^do_page_fault), else [other]
  cpu,      // the CPU the sample was taken on
  trace,    // a tracepoint sample's formatted payload (perf's "Trace output")
  time,     // the sample's time, in buckets of --time-quantum (100 ms by default)
};

// "comm,dso,sym" -> keys. perf's spellings: symbol = sym, thread = pid. Unknown keys are an
// error naming the key.
Result<std::vector<SortKey>> parse_sort_keys(std::string_view list);
// The column header as perf prints it ("Command", "    Pid:Command", ...).
std::string_view sort_key_header(SortKey key);
// --time-quantum's "100ms": a number with ns, us, ms or s (nanoseconds without one), above zero.
Result<uint64_t> parse_time_quantum(std::string_view text);
// Keys taken from the sampled address (one value per callchain frame) rather than the sample.
bool is_frame_key(SortKey key);

// perf's figure fields (-F, and -s's ordering words): Overhead, Children, sys, usr, Samples, Period.
enum class ReportFigure { overhead, overhead_children, overhead_sys, overhead_us, sample, period };
// A column of report's output, or a step of its ordering: a figure or a sort key.
struct ReportField {
  bool is_figure = false;
  ReportFigure figure = ReportFigure::overhead;
  SortKey key = SortKey::comm;
  bool operator==(const ReportField& other) const {
    return is_figure == other.is_figure && (is_figure ? figure == other.figure : key == other.key);
  }
};
// -F/--fields: the columns in order; `strict` unless the list began with '+' (which adds to
// perf's default columns instead of replacing them).
struct FieldSpec {
  bool strict = true;
  std::vector<ReportField> fields;
};
Result<FieldSpec> parse_report_fields(std::string_view text);

}  // namespace sonde::analysis
