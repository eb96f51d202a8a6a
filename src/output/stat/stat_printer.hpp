#pragma once
// perf stat's text layouts: the human table (stderr by default) and -x CSV, with the per-CPU
// (-A), per-thread and interval (-I) prefixes.
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
  bool interval = false;                     // lines carry a time prefix (-I)
  int runs = 1;                              // -r
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
  // Wall time (mean and spread over runs) and, for a single run of a workload, its CPU times.
  void print_footer(double elapsed_mean_s, double elapsed_stddev_s,
                    std::optional<double> elapsed_noise_percent,
                    std::optional<std::pair<double, double>> user_sys_s);

 private:
  void print_line(const StatCounterLine& line, const std::string& time_prefix);
  std::string prefix_text(const StatLinePrefix& prefix) const;
  bool csv() const { return options_.csv_separator.has_value(); }

  std::FILE* out_;
  StatPrintOptions options_;
  int intervals_printed_ = 0;
};

// perf's value formatting: two decimals for scaled (clock) events, none for counts.
std::string format_counter_value(double value, bool fractional);

}  // namespace sonde::output
