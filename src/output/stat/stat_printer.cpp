#include "output/stat/stat_printer.hpp"

#include <fmt/format.h>
#include <fmt/printf.h>

#include <cmath>
#include <ctime>

namespace sonde::output {

namespace {

// Column widths of perf 6.1's stat display.
constexpr int kValueWidth = 18;
constexpr int kUnitWidth = 4;
constexpr int kNameWidth = 32;
constexpr int kMetricWidth = 35;         // " # " + value + " " + unit, padded
constexpr int kUncountedNameWidth = 25;  // perf 6.1 pads <not counted>/<not supported> names less

std::string metric_value_text(const analysis::Metric& metric) {
  switch (metric.style) {
    case analysis::MetricStyle::ratio:
      return fmt::sprintf("%8.3f", metric.value);
    case analysis::MetricStyle::per_insn:
      return fmt::sprintf("%7.2f ", metric.value);
    case analysis::MetricStyle::percent:
      return fmt::sprintf("%7.2f%%", metric.value);
    case analysis::MetricStyle::wide_percent:
      return fmt::sprintf("%8.3f %%", metric.value);
  }
  return {};
}

std::string_view trim_left(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

std::string time_prefix_text(double ns, const std::string& separator) {
  auto total = static_cast<uint64_t>(ns);
  return fmt::format("{:6}.{:09}{}", total / 1000000000, total % 1000000000, separator);
}

}  // namespace

std::string format_counter_value(double value, bool fractional) {
  return fractional ? fmt::sprintf("%.2f", value) : fmt::sprintf("%.0f", value);
}

void StatPrinter::print_started_on() {
  std::time_t now = std::time(nullptr);
  fmt::print(out_, "# started on {}\n", std::string(std::ctime(&now)));
}

void StatPrinter::print_header(const std::string& target_description) {
  if (csv()) return;
  std::string runs = options_.runs > 1 ? fmt::format(" ({} runs)", options_.runs) : "";
  fmt::print(out_, "\n Performance counter stats for {}{}:\n\n", target_description, runs);
}

std::string StatPrinter::prefix_text(const StatLinePrefix& prefix) const {
  const std::string separator = csv() ? *options_.csv_separator : " ";
  switch (prefix.kind) {
    case StatLinePrefix::Kind::none:
      return {};
    case StatLinePrefix::Kind::cpu:
      return csv() ? fmt::format("CPU{}{}", prefix.cpu, separator)
                   : fmt::format("CPU{:<7}{}", prefix.cpu, separator);
    case StatLinePrefix::Kind::thread:
      return csv() ? fmt::format("{}-{}{}", prefix.comm, prefix.tid, separator)
                   : fmt::format("{:>16}-{:<8}{}", prefix.comm, prefix.tid, separator);
  }
  return {};
}

void StatPrinter::print_counters(const std::vector<StatCounterLine>& lines,
                                 std::optional<double> interval_ns) {
  std::string time_prefix;
  if (interval_ns) {
    time_prefix = time_prefix_text(*interval_ns, csv() ? *options_.csv_separator : " ");
    // perf repeats the column header every 25 intervals.
    if (!csv() && intervals_printed_ % 25 == 0) {
      StatLinePrefix::Kind kind = lines.empty() ? StatLinePrefix::Kind::none : lines.front().prefix.kind;
      const char* columns = kind == StatLinePrefix::Kind::cpu
                                ? "#           time CPU                    counts unit events"
                            : kind == StatLinePrefix::Kind::thread
                                ? "#           time             comm-pid                  counts unit events"
                                : "#           time             counts unit events";
      fmt::print(out_, "{}\n", columns);
    }
    ++intervals_printed_;
  }
  for (const auto& line : lines) print_line(line, time_prefix);
}

void StatPrinter::print_line(const StatCounterLine& line, const std::string& time_prefix) {
  std::string text = time_prefix + prefix_text(line.prefix);
  const bool counted = line.state == StatCounterLine::State::counted;
  std::string value =
      counted ? format_counter_value(line.value, line.fractional)
              : (line.state == StatCounterLine::State::not_counted ? "<not counted>" : "<not supported>");
  if (csv()) {
    const std::string& sep = *options_.csv_separator;
    text += value + sep + line.unit + sep + line.name;
    if (options_.runs > 1)
      text += sep + fmt::sprintf("%.2f%%", counted ? line.noise_percent.value_or(0) : 0.0);
    text += sep + fmt::format("{}", counted ? line.run_time_ns : 0) + sep +
            fmt::sprintf("%.2f", counted ? line.running_percent : 100.0);
    if (line.metric) {
      text += sep + std::string(trim_left(metric_value_text(*line.metric))) + sep + line.metric->unit;
    } else {
      text += sep + sep;
    }
    fmt::print(out_, "{}\n", text);
    return;
  }
  text += fmt::format("{:>{}} {:<{}} {:<{}}", value, kValueWidth, line.unit, kUnitWidth, line.name,
                      counted ? kNameWidth : kUncountedNameWidth);
  if (!counted) {
    text += std::string(kMetricWidth, ' ');
  } else if (line.metric) {
    std::string metric = " # " + metric_value_text(*line.metric);
    int unit_width = kMetricWidth - static_cast<int>(metric.size()) - 1;
    text += metric + fmt::format(" {:<{}}", line.metric->unit, unit_width > 0 ? unit_width : 0);
  } else {
    text += std::string(kMetricWidth, ' ');
  }
  if (counted && line.noise_percent && *line.noise_percent != 0)
    text += fmt::sprintf("  ( +-%6.2f%% )", *line.noise_percent);
  if (counted && line.running_percent < 100.0) text += fmt::sprintf("  (%.2f%%)", line.running_percent);
  fmt::print(out_, "{}\n", text);
}

void StatPrinter::print_footer(double elapsed_mean_s, double elapsed_stddev_s,
                               std::optional<double> elapsed_noise_percent,
                               std::optional<std::pair<double, double>> user_sys_s) {
  if (csv()) return;
  fmt::print(out_, "\n");
  if (options_.runs > 1) {
    // At most two more significant digits than the spread warrants, as perf.
    int precision = elapsed_stddev_s > 1 || elapsed_stddev_s <= 0
                        ? 0
                        : static_cast<int>(std::lround(std::ceil(-std::log10(elapsed_stddev_s))));
    precision += 2;
    fmt::print(out_, "{}",
               fmt::sprintf(" %17.*f +- %.*f seconds time elapsed", precision, elapsed_mean_s, precision,
                            elapsed_stddev_s));
    if (elapsed_noise_percent && *elapsed_noise_percent != 0)
      fmt::print(out_, "{}", fmt::sprintf("  ( +-%6.2f%% )", *elapsed_noise_percent));
    fmt::print(out_, "\n");
  } else {
    fmt::print(out_, "{}", fmt::sprintf(" %17.9f seconds time elapsed\n", elapsed_mean_s));
  }
  if (user_sys_s) {
    fmt::print(out_, "\n{}", fmt::sprintf(" %17.9f seconds user\n", user_sys_s->first));
    fmt::print(out_, "{}\n", fmt::sprintf(" %17.9f seconds sys\n", user_sys_s->second));
  }
  fmt::print(out_, "\n");
}

}  // namespace sonde::output
