#include "output/stat/stat_printer.hpp"

#include <fmt/format.h>
#include <fmt/printf.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
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

// JSON string contents: perf writes names as they are; escape what would break the line.
std::string json_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
      continue;
    }
    out += c;
  }
  return out;
}

// A JSON line's fields naming its unit: "cpu", "thread", or a group of CPUs with their count.
std::string json_prefix_fields(const StatLinePrefix& prefix) {
  auto group = [&](const char* key, const std::string& id) {
    return fmt::format("\"{}\" : \"{}\", \"aggregate-number\" : {}, ", key, id, prefix.cpus);
  };
  switch (prefix.kind) {
    case StatLinePrefix::Kind::none:
      break;
    case StatLinePrefix::Kind::cpu:
      return fmt::format("\"cpu\" : \"{}\", ", prefix.cpu);
    case StatLinePrefix::Kind::thread:
      return fmt::format("\"thread\" : \"{}-{}\", ", json_text(prefix.comm), prefix.tid);
    case StatLinePrefix::Kind::core:
      return group("core", fmt::format("S{}-D{}-C{}", prefix.socket, prefix.die, prefix.core));
    case StatLinePrefix::Kind::die:
      return group("die", fmt::format("S{}-D{}", prefix.socket, prefix.die));
    case StatLinePrefix::Kind::socket:
      return group("socket", fmt::format("S{}", prefix.socket));
    case StatLinePrefix::Kind::node:
      return group("node", fmt::format("N{}", prefix.node));
  }
  return {};
}

// The interval column header for each kind of line prefix, as perf 6.1 prints it.
const char* interval_columns(StatLinePrefix::Kind kind) {
  switch (kind) {
    case StatLinePrefix::Kind::cpu:
      return "#           time CPU                    counts unit events";
    case StatLinePrefix::Kind::thread:
      return "#           time             comm-pid                  counts unit events";
    case StatLinePrefix::Kind::core:
      return "#           time core            cpus             counts unit events";
    case StatLinePrefix::Kind::die:
      return "#           time die          cpus             counts unit events";
    case StatLinePrefix::Kind::socket:
      return "#           time socket cpus             counts unit events";
    case StatLinePrefix::Kind::node:
      return "#           time node   cpus             counts unit events";
    case StatLinePrefix::Kind::none:
      break;
  }
  return "#           time             counts unit events";
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
  if (csv() || options_.json) return;
  std::string runs = options_.runs > 1 ? fmt::format(" ({} runs)", options_.runs) : "";
  fmt::print(out_, "\n Performance counter stats for {}{}:\n\n", target_description, runs);
}

std::string StatPrinter::prefix_text(const StatLinePrefix& prefix) const {
  const std::string separator = csv() ? *options_.csv_separator : " ";
  // perf pads the group ids and the CPU count in the human layout only.
  const int id_width = csv() ? 0 : 8, short_id_width = csv() ? 0 : 5, count_width = csv() ? 0 : 4;
  auto count = fmt::format("{}{:>{}}{}", separator, prefix.cpus, count_width, separator);
  switch (prefix.kind) {
    case StatLinePrefix::Kind::none:
      return {};
    case StatLinePrefix::Kind::cpu:
      return csv() ? fmt::format("CPU{}{}", prefix.cpu, separator)
                   : fmt::format("CPU{:<7}{}", prefix.cpu, separator);
    case StatLinePrefix::Kind::thread:
      return csv() ? fmt::format("{}-{}{}", prefix.comm, prefix.tid, separator)
                   : fmt::format("{:>16}-{:<8}{}", prefix.comm, prefix.tid, separator);
    case StatLinePrefix::Kind::core:
      return fmt::format("S{}-D{}-C{:<{}}", prefix.socket, prefix.die, prefix.core, id_width) + count;
    case StatLinePrefix::Kind::die:
      return fmt::format("S{}-D{:<{}}", prefix.socket, prefix.die, id_width) + count;
    case StatLinePrefix::Kind::socket:
      return fmt::format("S{:<{}}", prefix.socket, short_id_width) + count;
    case StatLinePrefix::Kind::node:
      return fmt::format("N{:<{}}", prefix.node, short_id_width) + count;
  }
  return {};
}

void StatPrinter::print_interval_columns(StatLinePrefix::Kind kind) {
  if (options_.interval_clear) {
    fmt::print(out_, "\033[H\033[2J\n");
  } else if (intervals_printed_ % 25 != 0) {
    return;  // perf repeats the column header every 25 intervals
  }
  fmt::print(out_, "{}\n", interval_columns(kind));
}

void StatPrinter::print_counters(const std::vector<StatCounterLine>& lines,
                                 std::optional<double> interval_ns) {
  if (options_.metric_only) {
    print_metric_only(lines, interval_ns);
    return;
  }
  if (options_.json) {
    for (const auto& line : lines) print_json_line(line, interval_ns);
    return;
  }
  std::string time_prefix;
  if (interval_ns) {
    time_prefix = time_prefix_text(*interval_ns, csv() ? *options_.csv_separator : " ");
    if (!csv())
      print_interval_columns(lines.empty() ? StatLinePrefix::Kind::none : lines.front().prefix.kind);
    ++intervals_printed_;
  }
  for (const auto& line : lines) print_line(line, time_prefix);
}

void StatPrinter::print_summary_counters(const std::vector<StatCounterLine>& lines, bool csv_prefix) {
  if (!csv() || !csv_prefix) {
    print_counters(lines);
    return;
  }
  std::string prefix = fmt::format("{:>16}{}", "summary", *options_.csv_separator);
  for (const auto& line : lines) print_line(line, prefix);
}

void StatPrinter::print_json_line(const StatCounterLine& line, std::optional<double> interval_ns) {
  std::string text = "{";
  if (interval_ns) {
    auto total = static_cast<uint64_t>(*interval_ns);
    text += fmt::format("\"interval\" : {}.{:09}, ", total / 1000000000, total % 1000000000);
  }
  text += json_prefix_fields(line.prefix);
  const bool counted = line.state == StatCounterLine::State::counted;
  std::string value = counted                                             ? fmt::sprintf("%f", line.value)
                      : line.state == StatCounterLine::State::not_counted ? "<not counted>"
                                                                          : "<not supported>";
  text += fmt::format("\"counter-value\" : \"{}\", \"unit\" : \"{}\", \"event\" : \"{}\", ", value, line.unit,
                      json_text(line.name));
  if (!line.cgroup.empty()) text += fmt::format("\"cgroup\" : \"{}\", ", json_text(line.cgroup));
  if (options_.runs > 1)
    text += fmt::sprintf("\"variance\" : %.2f, ", counted ? line.noise_percent.value_or(0) : 0.0);
  text += fmt::format("\"event-runtime\" : {}, ", counted ? line.run_time_ns : 0);
  text += fmt::sprintf("\"pcnt-running\" : %.2f, ", counted ? line.running_percent : 100.0);
  // perf's "(null)": a counted event without a metric; "" for one that was not counted.
  std::string metric_unit = !counted ? "" : line.metric ? json_text(line.metric->unit) : "(null)";
  text += fmt::sprintf("\"metric-value\" : %f, ", counted && line.metric ? line.metric->value : 0.0);
  text += fmt::format("\"metric-unit\" : \"{}\"}}", metric_unit);
  fmt::print(out_, "{}\n", text);
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
    if (!line.cgroup.empty()) text += sep + line.cgroup;
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
  if (!line.cgroup.empty()) text += " " + line.cgroup;
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

void StatPrinter::print_run_table(int precision, double mean_s, const std::vector<double>& run_seconds) {
  // Indented to where the mean's digits begin, as perf.
  std::string mean_text = fmt::sprintf(" %17.*f", precision, mean_s);
  size_t indent = mean_text.find_first_not_of(' ');
  fmt::print(out_, "{}# Table of individual measurements:\n", std::string(indent, ' '));
  for (double run : run_seconds) {
    int bar = 1 + std::abs(static_cast<int>(100.0 * (run - mean_s) / run) / 5);
    fmt::print(out_, "{}{}\n", fmt::sprintf(" %17.*f (%+.*f) ", precision, run, precision, run - mean_s),
               std::string(static_cast<size_t>(bar), '#'));
  }
  fmt::print(out_, "\n{}# Final result:\n", std::string(indent, ' '));
}

void StatPrinter::print_footer(double elapsed_mean_s, double elapsed_stddev_s,
                               std::optional<double> elapsed_noise_percent,
                               std::optional<std::pair<double, double>> user_sys_s,
                               const std::vector<double>& run_seconds) {
  if (csv() || options_.json) return;
  fmt::print(out_, "\n");
  if (options_.runs > 1) {
    // At most two more significant digits than the spread warrants, as perf.
    int precision = elapsed_stddev_s > 1 || elapsed_stddev_s <= 0
                        ? 0
                        : static_cast<int>(std::lround(std::ceil(-std::log10(elapsed_stddev_s))));
    precision += 2;
    if (options_.run_table && !run_seconds.empty()) print_run_table(precision, elapsed_mean_s, run_seconds);
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

namespace {

// perf's metric-only column: 20 wide, and a unit that is a column of its own, not a rate.
constexpr size_t kMetricOnlyWidth = 20;

// The header's indent for each row prefix (perf's aggr_header_lens).
size_t metric_only_indent(StatLinePrefix::Kind kind) {
  switch (kind) {
    case StatLinePrefix::Kind::core:
    case StatLinePrefix::Kind::thread:
      return 24;
    case StatLinePrefix::Kind::die:
      return 18;
    case StatLinePrefix::Kind::socket:
      return 12;
    case StatLinePrefix::Kind::cpu:
    case StatLinePrefix::Kind::node:
      return 6;
    case StatLinePrefix::Kind::none:
      break;
  }
  return 0;
}

const char* metric_only_csv_header(StatLinePrefix::Kind kind) {
  switch (kind) {
    case StatLinePrefix::Kind::core:
      return "core,cpus,";
    case StatLinePrefix::Kind::die:
      return "die,cpus";
    case StatLinePrefix::Kind::socket:
      return "socket,cpus";
    case StatLinePrefix::Kind::cpu:
      return "cpu,";
    case StatLinePrefix::Kind::thread:
      return "comm-pid,";
    case StatLinePrefix::Kind::node:
      return "node,";
    case StatLinePrefix::Kind::none:
      break;
  }
  return "";
}

const char* metric_only_interval_columns(StatLinePrefix::Kind kind) {
  switch (kind) {
    case StatLinePrefix::Kind::cpu:
      return " CPU    ";
    case StatLinePrefix::Kind::core:
      return " core            cpus";
    case StatLinePrefix::Kind::die:
      return " die          cpus";
    case StatLinePrefix::Kind::socket:
      return " socket cpus";
    case StatLinePrefix::Kind::node:
      return " node   cpus";
    case StatLinePrefix::Kind::thread:
    case StatLinePrefix::Kind::none:
      break;
  }
  return "";
}

// A miss ratio's colour as perf picks it (its escape codes count in the width even when, on a
// pipe, they are not written): 20%, 10%, 5% for red, magenta, yellow, else "normal".
size_t colour_width(const analysis::Metric& metric) {
  if (metric.style != analysis::MetricStyle::percent && metric.style != analysis::MetricStyle::wide_percent)
    return 0;
  if (metric.unit.find("cycles idle") != std::string::npos) return 0;
  return metric.value > 5.0 ? 8 : 3;
}

}  // namespace

std::string StatPrinter::metric_only_cell(const StatCounterLine& line) const {
  const bool counted = line.state == StatCounterLine::State::counted;
  if (counted && (!line.metric || !analysis::metric_only_shows(line.metric->unit))) return {};
  std::string value = counted ? metric_value_text(*line.metric) : "";
  if (csv() || options_.json) {
    // perf's CSV and JSON value: the number alone, up to its first character that is neither a
    // digit nor a point.
    std::string_view number = trim_left(value);
    size_t end = 0;
    while (end < number.size() &&
           (std::isdigit(static_cast<unsigned char>(number[end])) || number[end] == '.'))
      ++end;
    std::string cut(number.substr(0, end));
    if (options_.json) return fmt::format("{{\"metric-value\" : \"{}\"}}", cut);
    return cut + *options_.csv_separator;
  }
  size_t width = kMetricOnlyWidth;
  if (counted) {
    std::string unit = analysis::metric_only_unit(line.metric->unit, line.name);
    if (unit.size() > width) width = unit.size() + 1;
    width += colour_width(*line.metric);
  }
  return fmt::format("{:>{}} ", value, width);
}

void StatPrinter::print_metric_only_header(StatLinePrefix::Kind kind) {
  std::string text;
  const auto& units = options_.metric_header;
  if (options_.json) {
    text = "{";
    if (!options_.interval) {
      text += std::string(metric_only_indent(kind), ' ');
      for (size_t i = 0; i < units.size(); ++i)
        text += fmt::format("{}\"unit\" : \"{}\"", i ? ", " : "", json_text(units[i]));
    }
    text += "}";
  } else if (csv()) {
    if (options_.interval) text += " time" + *options_.csv_separator;
    text += metric_only_csv_header(kind);
    for (const std::string& unit : units) text += unit + *options_.csv_separator;
  } else {
    if (options_.interval)
      text = std::string("#           time") + metric_only_interval_columns(kind) + " ";
    else
      text = std::string(metric_only_indent(kind), ' ');
    for (const std::string& unit : units) text += fmt::format("{:>{}} ", unit, kMetricOnlyWidth);
  }
  fmt::print(out_, "{}\n", text);
}

void StatPrinter::print_metric_only(const std::vector<StatCounterLine>& lines,
                                    std::optional<double> interval_ns) {
  const StatLinePrefix::Kind kind = lines.empty() ? StatLinePrefix::Kind::none : lines.front().prefix.kind;
  // The header once, or every 25 intervals (each with --interval-clear), as perf.
  if (!interval_ns || options_.interval_clear || intervals_printed_ % 25 == 0) {
    if (interval_ns && options_.interval_clear) fmt::print(out_, "\033[H\033[2J\n");
    if (!interval_ns || intervals_printed_ == 0 || options_.interval_clear || !csv())
      print_metric_only_header(kind);
  }
  std::string time_prefix;
  if (interval_ns) {
    ++intervals_printed_;
    if (options_.json) {
      auto total = static_cast<uint64_t>(*interval_ns);
      time_prefix = fmt::format("{{\"interval\" : {}.{:09}}}", total / 1000000000, total % 1000000000);
    } else {
      time_prefix = time_prefix_text(*interval_ns, csv() ? *options_.csv_separator : " ");
    }
  }
  // A row per aggregation unit, its counters in order.
  std::vector<std::string> row_keys;
  std::vector<std::string> rows;
  for (const StatCounterLine& line : lines) {
    std::string key = prefix_text(line.prefix);
    auto at = std::find(row_keys.begin(), row_keys.end(), key);
    if (at == row_keys.end()) {
      row_keys.push_back(key);
      std::string start = time_prefix;
      if (options_.json) {
        // perf opens the row's object with its unit and never closes it.
        if (line.prefix.kind != StatLinePrefix::Kind::none) start += "{" + json_prefix_fields(line.prefix);
      } else {
        start += key;
      }
      rows.push_back(start);
      at = row_keys.end() - 1;
    }
    rows[static_cast<size_t>(at - row_keys.begin())] += metric_only_cell(line);
  }
  if (rows.empty()) rows.push_back(time_prefix);
  for (const std::string& row : rows) fmt::print(out_, "{}\n", row);
}

}  // namespace sonde::output
