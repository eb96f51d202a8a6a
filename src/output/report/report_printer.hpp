#pragma once
// perf report --stdio's text: per event, the "# Samples" header, the column headers with their
// dotted rules, one line per hist entry (Children/Self or Overhead, Samples, Period, then the
// sort keys) and the entry's call graph beneath it.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "analysis/report/callchain.hpp"
#include "analysis/report/group_hist.hpp"
#include "analysis/report/hierarchy.hpp"
#include "analysis/report/hist.hpp"
#include "analysis/report/report_options.hpp"
#include "output/report/callgraph_printer.hpp"

namespace sonde::output {

struct ReportLayout {
  std::vector<analysis::SortKey> keys;  // the columns shown (a single-value filter elides one)
  // -F: every column in order (figures and keys, the keys as in `keys`); empty for perf's
  // default: the figures the flags below ask for, then `keys`.
  std::vector<analysis::ReportField> fields;
  bool self_named = false;  // children mode's Overhead column is perf's "Self" (not under a strict -F)
  bool children = false;
  bool show_samples = false;          // -n
  bool show_cpu_utilization = false;  // --show-cpu-utilization: the self period's sys and usr shares
  bool show_period = false;           // --show-total-period
  double percent_limit = 0;           // --percent-limit
  bool callchains = false;
  analysis::CallchainParams callchain;
  CallgraphStyle graph;
  const analysis::ReportFilters* filters = nullptr;  // --dso, --symbols: entries to hide
  std::optional<std::string> field_separator;        // -t: columns joined by it, not padded apart
  std::vector<size_t> column_widths;                 // --column-widths, in the columns' order
  // top: only the first entries shown, the columns sized to them, and each entry's line cut to
  // max_columns - 1 characters (perf's snprintf into its line); 0 for all, uncut.
  size_t max_entries = 0;
  size_t max_columns = 0;
};

// What the entries a filter shows add up to (self period and samples): the totals of
// --percentage relative.
struct VisibleTotals {
  uint64_t samples = 0;
  uint64_t period = 0;
};
VisibleTotals visible_totals(analysis::Histogram& histogram, analysis::ReportTables& tables,
                             const ReportLayout& layout);

// A sample count as perf abbreviates it: "1K", "3M"; below a thousand the number, followed by
// `no_unit` unless it is '\0'.
std::string sample_count_text(uint64_t samples, char no_unit = '\0');

// "# Samples: 1K of event 'cpu-clock'" and the event count, as perf abbreviates them.
// `time_slices`: --time's text, which perf repeats after the event name.
// `several`: an event group's leader ("of events '...'").
void print_event_header(std::FILE* out, uint64_t samples, const std::string& event_name,
                        uint64_t total_period, const std::string& time_slices = "", bool several = false);

// One entry as print_histogram prints it: its line and its call graph's lines (no newlines).
struct HistogramRow {
  uint32_t entry = 0;  // in the histogram's entries()
  std::string line;
  std::vector<std::string> graph;
};
struct HistogramRows {
  std::string header;  // the column header, without perf's "# "
  std::vector<HistogramRow> rows;
};
// The entries print_histogram would print, in its order, for a browser to show.
HistogramRows histogram_rows(analysis::Histogram& histogram, analysis::ReportTables& tables,
                             const ReportLayout& layout, uint64_t total);

// The column header and every entry of one event's histogram (with call graphs). `total` is
// the period percentages are taken of.
void print_histogram(std::FILE* out, analysis::Histogram& histogram, analysis::ReportTables& tables,
                     const ReportLayout& layout, uint64_t total, bool with_header);
// --hierarchy: the entries folded level by level, one level per sort key (no call graphs).
void print_hierarchy(std::FILE* out, const analysis::Hierarchy& hierarchy, analysis::ReportTables& tables,
                     const ReportLayout& layout, const std::vector<uint64_t>& totals, bool with_header);
// An event group's rows: each figure column holds every member's, percentages of `totals`
// (one per member).
void print_group_histogram(std::FILE* out, const analysis::GroupHistogram& group,
                           analysis::ReportTables& tables, const ReportLayout& layout,
                           const std::vector<uint64_t>& totals, bool with_header);

}  // namespace sonde::output
