#pragma once
// perf stat's layouts: the human table (stderr by default), -x CSV and -j JSON lines, with the
// per-CPU (-A), per-thread, per-core/die/socket/node and interval (-I) prefixes.
#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "analysis/stat/stat_table.hpp"

namespace sonde::output {

using analysis::StatCounterLine;
using analysis::StatLinePrefix;

struct StatPrintOptions {
  std::optional<std::string> csv_separator;  // -x
  bool json = false;                         // -j: one JSON object per counter line
  bool interval = false;                     // lines carry a time prefix (-I)
  bool interval_clear = false;               // --interval-clear: clear the terminal before each
  int runs = 1;                              // -r
  bool run_table = false;                    // --table: each run's time before the mean
  // --metric-only: a row per aggregation unit of the counters' metrics; the header's columns
  // (perf 6.1.y prints them with -A only) are these units.
  bool metric_only = false;
  std::vector<std::string> metric_header;
};

class StatPrinter {
 public:
  StatPrinter(std::FILE* out, StatPrintOptions options) : out_(out), options_(std::move(options)) {}

  // "# started on <date>" and a blank line, as perf begins an -o file.
  void print_started_on();
  // " Performance counter stats for 'ls -l' (5 runs):" with its blank lines (not in CSV).
  void print_header(const std::string& target_description);
  // The counters of one measurement or one interval. interval_ns is the time stamp (-I).
  void print_counters(const std::vector<StatCounterLine>& lines,
                      std::optional<double> interval_ns = std::nullopt);
  // The whole run's counters after the intervals (--summary); CSV lines start with "summary"
  // unless csv_prefix is false (--no-csv-summary).
  void print_summary_counters(const std::vector<StatCounterLine>& lines, bool csv_prefix);
  // Wall time (mean and spread over runs, with each run's time for --table) and, for a single run
  // of a workload, its CPU times.
  void print_footer(double elapsed_mean_s, double elapsed_stddev_s,
                    std::optional<double> elapsed_noise_percent,
                    std::optional<std::pair<double, double>> user_sys_s,
                    const std::vector<double>& run_seconds = {});

 private:
  void print_line(const StatCounterLine& line, const std::string& time_prefix);
  void print_metric_only(const std::vector<StatCounterLine>& lines, std::optional<double> interval_ns);
  void print_metric_only_header(StatLinePrefix::Kind kind);
  std::string metric_only_cell(const StatCounterLine& line) const;
  void print_json_line(const StatCounterLine& line, std::optional<double> interval_ns);
  void print_interval_columns(StatLinePrefix::Kind kind);
  void print_run_table(int precision, double mean_s, const std::vector<double>& run_seconds);
  std::string prefix_text(const StatLinePrefix& prefix) const;
  bool csv() const { return options_.csv_separator.has_value(); }

  std::FILE* out_;
  StatPrintOptions options_;
  int intervals_printed_ = 0;
};

// perf's value formatting: two decimals for scaled (clock) events, none for counts.
std::string format_counter_value(double value, bool fractional);

}  // namespace sonde::output
