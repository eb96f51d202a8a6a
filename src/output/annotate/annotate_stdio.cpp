#include "output/annotate/annotate_stdio.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace sonde::output {

namespace {

constexpr size_t kDottedLine = 207;  // perf's graph_dotted_line holds this many dashes
constexpr double kSummaryMinPercent = 0.5;

}  // namespace

const char* percent_type_name(PercentType type) {
  switch (type) {
    case PercentType::local_hits:
      return "local hits";
    case PercentType::global_hits:
      return "global hits";
    case PercentType::global_period:
      return "global period";
    case PercentType::local_period:
      break;
  }
  return "local period";
}

double AnnotatePrinter::percent(const analysis::AddressHits& hits, const analysis::PerfAnnotation& annotation,
                                const analysis::AddressHits& event_total) const {
  bool period =
      layout_.percent_type == PercentType::local_period || layout_.percent_type == PercentType::global_period;
  bool global =
      layout_.percent_type == PercentType::global_period || layout_.percent_type == PercentType::global_hits;
  const analysis::AddressHits& total = global ? event_total : annotation.total;
  uint64_t whole = period ? total.period : total.samples;
  return whole == 0
             ? 0.0
             : 100.0 * static_cast<double>(period ? hits.period : hits.samples) / static_cast<double>(whole);
}

void AnnotatePrinter::print(const analysis::PerfAnnotation& annotation, const std::string& dso_name,
                            const std::string& summary_name, const std::string& event_name,
                            const analysis::AddressHits& event_total,
                            const std::function<std::string(uint64_t address)>& srcline) {
  const int width = layout_.column == AnnotateColumn::period ? 12 : 8;
  // -l: each hot instruction's source line, and their sums, hottest first.
  std::vector<std::string> hot_lines(annotation.lines.size());
  if (layout_.print_line) {
    std::map<std::string, double> sums;
    for (size_t i = 0; i < annotation.lines.size(); ++i) {
      const analysis::PerfAnnotationLine& line = annotation.lines[i];
      if (line.offset < 0) continue;
      double share = percent(line.hits, annotation, event_total);
      if (share <= kSummaryMinPercent) continue;
      uint64_t address = annotation.start + static_cast<uint64_t>(line.offset);
      std::string where = srcline(address);
      if (where.empty()) where = fmt::format("{}[{:x}]", dso_name, address);
      sums[where] += share;
      hot_lines[i] = std::move(where);
    }
    std::vector<std::pair<std::string, double>> sorted(sums.begin(), sums.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first > b.first;
    });
    fmt::print(out_, "\nSorted summary for file {}\n----------------------------------------------\n\n",
               summary_name);
    if (sorted.empty()) fmt::print(out_, " Nothing higher than {}%\n", kSummaryMinPercent);
    for (const auto& [where, share] : sorted) fmt::print(out_, " {:7.2f} {}\n", share, where);
  }

  const char* label = layout_.column == AnnotateColumn::samples  ? "Samples"
                      : layout_.column == AnnotateColumn::period ? "Period"
                                                                 : "Percent";
  std::string header = fmt::format(
      " {:<{}}|\tSource code & Disassembly of {} for {} ({} samples, percent: {})\n", label, width, dso_name,
      event_name, annotation.total.samples, percent_type_name(layout_.percent_type));
  size_t dashes = std::min(header.size(), kDottedLine);
  fmt::print(out_, "{}{}{}----\n", header, std::string(dashes, '-'),
             std::string(header.size() - dashes, ' '));
  std::string blank(static_cast<size_t>(width), ' ');
  for (size_t i = 0; i < annotation.lines.size(); ++i) {
    const analysis::PerfAnnotationLine& line = annotation.lines[i];
    if (line.offset < 0) {
      if (line.text.empty())
        fmt::print(out_, " {}:\n", blank);
      else
        fmt::print(out_, " {}: {:<{}} {}\n", blank, line.line_nr, annotation.address_width, line.text);
      continue;
    }
    if (layout_.column == AnnotateColumn::samples)
      fmt::print(out_, " {:7}", line.hits.samples);
    else if (layout_.column == AnnotateColumn::period)
      fmt::print(out_, " {:11}", line.hits.period);
    else
      fmt::print(out_, " {:7.2f}", percent(line.hits, annotation, event_total));
    fmt::print(out_, " :   {:>{}x}:{}", annotation.start + static_cast<uint64_t>(line.offset),
               annotation.address_width, line.text);
    if (!hot_lines[i].empty() && hot_lines[i] != previous_srcline_) {
      fmt::print(out_, " // {}", hot_lines[i]);
      previous_srcline_ = hot_lines[i];
    }
    fmt::print(out_, "\n");
  }
}

}  // namespace sonde::output
