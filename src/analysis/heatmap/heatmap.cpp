#include "analysis/heatmap/heatmap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "analysis/stacks/stack_collapse_chars.hpp"

namespace sonde::analysis {

namespace {

template <typename Visit>
void for_each_line(std::string_view text, Visit&& visit) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    visit(text.substr(at, end - at));
    at = end + 1;
  }
}

// The whitespace-separated fields of a line, at most `max`.
size_t fields(std::string_view line, std::string_view* out, size_t max) {
  size_t count = 0, i = 0;
  while (count < max) {
    while (i < line.size() && perl_space(line[i])) ++i;
    if (i >= line.size()) break;
    size_t start = i;
    while (i < line.size() && !perl_space(line[i])) ++i;
    out[count++] = line.substr(start, i - start);
  }
  return count;
}

std::optional<double> number(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::string owned(text);
  char* end = nullptr;
  double value = std::strtod(owned.c_str(), &end);
  if (end != owned.c_str() + owned.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

bool has_letter(std::string_view line) {
  return std::any_of(line.begin(), line.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); });
}

}  // namespace

Result<double> time_divisor_of(std::string_view units) {
  if (units.empty() || units == "s") return 1.0;
  if (units == "ms") return 1e3;
  if (units == "us") return 1e6;
  if (units == "ns") return 1e9;
  return fail_usage(fmt::format("--unitstime '{}': use s, ms, us or ns", units));
}

Result<HeatMap> HeatMapBinner::bin(const HeatMapOptions& options) const {
  if (events_.empty()) return fail("no events to draw: give lines of \"time latency\" (two numbers)");
  if (options.step_sec <= 0 || options.time_divisor <= 0) return fail("--stepsec must be positive");
  if (options.rows <= 0) return fail("--rows must be positive");
  double start = events_.front().time, end = start, largest = 0;
  for (const auto& event : events_) {
    end = std::max(end, event.time);
    largest = std::max(largest, event.latency);
  }
  if ((end - start) / options.time_divisor / options.step_sec > static_cast<double>(options.column_limit))
    return failf(
        "too many columns (more than {}): the times span {} units; try --unitstime or a larger --stepsec",
        options.column_limit, end - start);
  HeatMap map;
  map.min_lat = options.min_lat;
  map.max_lat = options.max_lat.value_or(largest);
  map.step_sec = options.step_sec;
  map.step_lat = options.step_lat.value_or(std::trunc((map.max_lat - map.min_lat) / options.rows));
  if (!options.step_lat && map.step_lat <= 0 && options.fractional_rows && map.max_lat > map.min_lat) {
    double quotient = (map.max_lat - map.min_lat) / options.rows;
    double scale = std::pow(10, std::floor(std::log10(quotient)) - 1);
    map.step_lat = std::round(quotient / scale) * scale;
  }
  if (map.step_lat <= 0)
    return failf("row resolution too high: latencies {}..{} in {} rows; use fewer --rows or a --steplat",
                 map.min_lat, map.max_lat, options.rows);
  map.rows = static_cast<size_t>((map.max_lat - map.min_lat) / map.step_lat) + 1;
  size_t columns = 0;
  for (const auto& event : events_) {
    if (event.latency < map.min_lat || event.latency > map.max_lat) continue;
    auto col = static_cast<long>((event.time - start) / options.time_divisor / options.step_sec);
    if (col < 0 || (options.max_col && col > *options.max_col)) continue;
    columns = std::max(columns, static_cast<size_t>(col) + 1);
  }
  map.columns = columns;
  map.counts.assign(map.columns * map.rows, 0);
  for (const auto& event : events_) {
    if (event.latency < map.min_lat || event.latency > map.max_lat) continue;
    auto col = static_cast<long>((event.time - start) / options.time_divisor / options.step_sec);
    if (col < 0 || (options.max_col && col > *options.max_col)) continue;
    auto row = static_cast<size_t>((event.latency - map.min_lat) / map.step_lat);
    row = std::min(row, map.rows - 1);
    uint64_t& cell = map.counts[static_cast<size_t>(col) * map.rows + row];
    ++cell;
    ++map.events;
    map.largest_count = std::max(map.largest_count, cell);
  }
  if (map.events == 0)
    return fail("no events within the latency range (--minlat/--maxlat) and columns (--maxcol)");
  return map;
}

size_t read_latency_pairs(std::string_view text, HeatMapBinner& binner) {
  size_t skipped = 0;
  bool first = true;
  for_each_line(text, [&](std::string_view line) {
    bool header = first && has_letter(line);
    first = false;
    if (header) return;
    std::string_view parts[2];
    if (fields(line, parts, 2) < 2) {
      if (!line.empty()) ++skipped;
      return;
    }
    auto time = number(parts[0]), latency = number(parts[1]);
    if (!time || !latency) {
      ++skipped;
      return;
    }
    binner.add(*time, *latency);
  });
  return skipped;
}

size_t read_offset_timestamps(std::string_view text, HeatMapBinner& binner) {
  size_t skipped = 0;
  for_each_line(text, [&](std::string_view line) {
    if (line.empty() || line.front() == '#' || perl_space(line.front())) return;  // comments, stack lines
    std::string_view parts[16];
    size_t count = fields(line, parts, 16);
    double stamp = 0;
    bool found = false;
    if (count >= 1 && count <= 2) {
      auto seconds = number(parts[0]);
      auto micros = count == 2 ? number(parts[1]) : std::optional<double>(0.0);
      // a bare timestamp, or "seconds micros" as offsets-perf.pl prints them
      if (seconds && micros) {
        stamp = *seconds + *micros / kOffsetAxisMicros;
        found = true;
      }
    }
    // perf script: the "SECONDS.FRACTION:" field of a sample header line
    for (size_t i = 1; !found && count > 2 && i < count; ++i) {
      if (parts[i].size() > 1 && parts[i].back() == ':' && parts[i].find('.') != std::string_view::npos) {
        if (auto value = number(parts[i].substr(0, parts[i].size() - 1))) {
          stamp = *value;
          found = true;
        }
      }
    }
    if (!found) {
      ++skipped;
      return;
    }
    add_offset_timestamp(binner, stamp);
  });
  return skipped;
}

void add_offset_timestamp(HeatMapBinner& binner, double seconds) {
  double second = std::floor(seconds);
  binner.add(second, (seconds - second) * kOffsetAxisMicros);
}

void add_latency_pairs(HeatMapBinner& binner, const std::vector<LatencyPair>& pairs, double latency_unit_ns) {
  for (const LatencyPair& pair : pairs)
    binner.add(static_cast<double>(pair.start_ns) / 1e9,
               static_cast<double>(pair.latency_ns) / latency_unit_ns);
}

}  // namespace sonde::analysis
