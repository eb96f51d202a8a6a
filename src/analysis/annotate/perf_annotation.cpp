#include "analysis/annotate/perf_annotation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "base/strings.hpp"

namespace sonde::analysis {

namespace {

// Tabs to 8-column stops, counted from the start of the (trimmed) line, as perf expands them.
std::string expand_tabs(std::string_view line) {
  std::string out;
  for (char c : line) {
    if (c != '\t') {
      out += c;
      continue;
    }
    do out += ' ';
    while (out.size() % 8 != 0);
  }
  return out;
}

// perf's file_lineno regex, ^/[^:]+:([0-9]+): the line number of an absolute "path:NN" line.
std::optional<int> absolute_location(std::string_view line) {
  if (line.empty() || line[0] != '/') return std::nullopt;
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon < 2 || colon + 1 >= line.size()) return std::nullopt;
  size_t digits = colon + 1;
  while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
  if (digits == colon + 1) return std::nullopt;
  return std::atoi(std::string(line.substr(colon + 1, digits - colon - 1)).c_str());
}

}  // namespace

PerfAnnotation perf_annotation(const std::vector<std::string>& objdump_lines, uint64_t start, uint64_t size,
                               const std::map<uint64_t, AddressHits>& hits, uint64_t decoded_size) {
  PerfAnnotation annotation;
  annotation.start = start;
  annotation.size = size;
  int line_nr = 0;
  for (const std::string& raw : objdump_lines) {
    std::string line = expand_tabs(trim(raw));
    if (auto number = absolute_location(line)) {
      line_nr = *number;
      continue;
    }
    PerfAnnotationLine& out = annotation.lines.emplace_back();
    out.line_nr = line_nr++;
    char* end = nullptr;
    uint64_t address = std::strtoull(line.c_str(), &end, 16);
    if (end != line.c_str() && end[0] == ':' && end[1] != '\0' && address >= start &&
        address < start + size) {
      out.offset = static_cast<int64_t>(address - start);
      out.text = std::string(end + 1);
    } else {
      out.text = std::move(line);
    }
  }
  // Each instruction holds the hits from its offset up to the next instruction (the last one
  // up to the symbol's end).
  int64_t last = -1;
  for (size_t i = annotation.lines.size(); i-- > 0;) {
    PerfAnnotationLine& line = annotation.lines[i];
    if (line.offset < 0) continue;
    uint64_t until = last < 0 ? std::min(size, decoded_size) : static_cast<uint64_t>(last);
    for (auto it = hits.lower_bound(static_cast<uint64_t>(line.offset));
         it != hits.end() && it->first < until; ++it) {
      line.hits.samples += it->second.samples;
      line.hits.period += it->second.period;
    }
    if (last < 0)
      annotation.address_width = static_cast<int>(fmt::format("{:x}", start + line.offset).size());
    last = line.offset;
  }
  for (const auto& [offset, hit] : hits) {
    annotation.total.samples += hit.samples;
    annotation.total.period += hit.period;
  }
  return annotation;
}

}  // namespace sonde::analysis
