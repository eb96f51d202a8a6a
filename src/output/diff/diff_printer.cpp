#include "output/diff/diff_printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace sonde::output {

namespace {

using analysis::DiffCompute;

struct Column {
  std::string header;
  size_t width;
};

std::string compute_header(DiffCompute compute) {
  switch (compute) {
    case DiffCompute::delta:
      return "Delta";
    case DiffCompute::delta_abs:
      return "Delta Abs";
    case DiffCompute::ratio:
      return "Ratio";
    case DiffCompute::wdiff:
      return "Weighted diff";
  }
  return "";
}

// perf's minimum widths: percentages 7 ("+99.99%"), ratio and weighted diff 14.
size_t compute_width(DiffCompute compute, const std::string& header) {
  size_t minimum = compute == DiffCompute::ratio || compute == DiffCompute::wdiff ? 14 : 7;
  return std::max(minimum, header.size());
}

std::string value_cell(const analysis::DiffRow& row, size_t column, const analysis::DiffRequest& request) {
  if (!row.cells[column].present) return "";
  auto value = analysis::diff_value(row, column, request);
  if (!value) return "N/A";
  switch (request.compute) {
    case DiffCompute::delta:
    case DiffCompute::delta_abs:
      return fmt::format("{:+.2f}%", *value);
    case DiffCompute::ratio:
      return fmt::format("{:.6f}", *value);
    case DiffCompute::wdiff:
      return fmt::format("{}", static_cast<int64_t>(*value));
  }
  return "";
}

}  // namespace

void print_diff(std::FILE* out, const std::vector<analysis::EventDiff>& diffs,
                const analysis::DiffRequest& request) {
  size_t files = request.files.size();
  bool numbered = files > 2;
  bool first_event = true;
  for (const analysis::EventDiff& diff : diffs) {
    if (!first_event) fmt::print(out, "\n");
    first_event = false;
    fmt::print(out, "# Event '{}'\n#\n", diff.event);
    if (numbered) {
      fmt::print(out, "# Data files:\n");
      for (size_t i = 0; i < files; ++i)
        fmt::print(out, "#  [{}] {} {}\n", i, request.files[i], i == 0 ? "(Baseline)" : "");
      fmt::print(out, "#\n");
    }
    std::vector<Column> values;
    std::string baseline = numbered ? "Baseline/0" : "Baseline";
    values.push_back({baseline, std::max<size_t>(8, baseline.size())});
    for (size_t i = 1; i < files; ++i) {
      std::string header = compute_header(request.compute) + (numbered ? fmt::format("/{}", i) : "");
      values.push_back({header, compute_width(request.compute, header)});
    }
    std::vector<Column> keys;
    for (size_t k = 0; k < request.keys.size(); ++k) {
      std::string header(analysis::sort_key_header(request.keys[k]));
      size_t width = header.size();
      for (const auto& row : diff.rows) width = std::max(width, row.keys[k].size());
      keys.push_back({header, width});
    }
    std::string header_line = "#", rule_line = "#";
    for (size_t i = 0; i < values.size(); ++i) {
      header_line += fmt::format("{}{:>{}}", i == 0 ? " " : "  ", values[i].header, values[i].width);
      rule_line += (i == 0 ? " " : "  ") + std::string(values[i].width, '.');
    }
    for (const Column& key : keys) {
      header_line += fmt::format("  {:<{}}", key.header, key.width);
      rule_line += "  " + std::string(key.width, '.');
    }
    fmt::print(out, "{}\n{}\n#\n", header_line, rule_line);
    std::string line;
    for (const analysis::DiffRow& row : diff.rows) {
      line.clear();
      std::string base = row.cells[0].present ? fmt::format("{:.2f}%", row.cells[0].percent) : "";
      line += fmt::format("{:>{}}", base, values[0].width + 2);
      for (size_t i = 1; i < files; ++i)
        line += fmt::format("  {:>{}}", value_cell(row, i, request), values[i].width);
      for (size_t k = 0; k < keys.size(); ++k) {
        bool last = k + 1 == keys.size();
        // perf pads every key column but a trailing symbol or source line.
        bool pad = !last || (request.keys[k] != analysis::SortKey::sym &&
                             request.keys[k] != analysis::SortKey::srcline);
        line += pad ? fmt::format("  {:<{}}", row.keys[k], keys[k].width) : "  " + row.keys[k];
      }
      fmt::print(out, "{}\n", line);
    }
  }
}

}  // namespace sonde::output
