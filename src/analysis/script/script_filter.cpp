#include "analysis/script/script_filter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "base/strings.hpp"

namespace sonde::analysis {

Result<uint64_t> parse_timestamp(std::string_view text) {
  std::string_view seconds = text, fraction;
  if (size_t dot = text.find('.'); dot != std::string_view::npos) {
    seconds = text.substr(0, dot);
    fraction = text.substr(dot + 1);
  }
  if (fraction.size() > 9 || (seconds.empty() && fraction.empty()))
    return failf("'{}' is not a time in seconds (at most nine decimals)", text);
  auto whole = seconds.empty() ? std::optional<unsigned long long>(0) : parse_uint(seconds, 10);
  std::string padded(fraction);
  padded.resize(9, '0');
  auto nanos = parse_uint(padded, 10);
  if (!whole || !nanos ||
      !std::all_of(fraction.begin(), fraction.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return failf("'{}' is not a time in seconds", text);
  return static_cast<uint64_t>(*whole) * 1000000000ull + *nanos;
}

Result<std::vector<TimeRange>> parse_time_ranges(std::string_view text) {
  std::vector<TimeRange> ranges;
  for (const std::string& part : split(text, ' ')) {
    if (part.empty()) continue;
    size_t comma = part.find(',');
    std::string_view start = std::string_view(part).substr(0, comma);
    std::string_view end =
        comma == std::string::npos ? std::string_view() : std::string_view(part).substr(comma + 1);
    TimeRange range;
    if (!start.empty()) {
      auto value = parse_timestamp(start);
      if (!value) return tl::unexpected(value.error());
      range.start = *value;
    }
    if (!end.empty()) {
      auto value = parse_timestamp(end);
      if (!value) return tl::unexpected(value.error());
      range.end = *value;
    }
    if (range.end != 0 && range.end < range.start)
      return failf("the time range '{}' ends before it starts", part);
    ranges.push_back(range);
  }
  if (ranges.empty()) return failf("'{}' is not a time range; use start,stop in seconds", text);
  return ranges;
}

Result<std::vector<TimeRange>> parse_time_slices(std::string_view text,
                                                 std::optional<std::pair<uint64_t, uint64_t>> sample_times) {
  if (text.find('%') == std::string_view::npos) return parse_time_ranges(text);
  if (!sample_times || sample_times->second <= sample_times->first)
    return fail(
        "--time's percent slices need the file's first and last sample times, and it has none "
        "(record it again, or give start,stop in seconds)");
  const uint64_t first = sample_times->first, total = sample_times->second - first;
  auto percent_of = [](std::string_view part) -> std::optional<double> {
    part = trim(part);
    if (part.empty() || part.back() != '%') return std::nullopt;
    std::string number(part.substr(0, part.size() - 1));
    char* end = nullptr;
    double value = std::strtod(number.c_str(), &end);
    if (number.empty() || *end != '\0' || value < 0 || value > 100) return std::nullopt;
    return value / 100.0;
  };
  std::vector<TimeRange> ranges;
  for (const std::string& part : split(text, ',')) {
    double from = 0, to = 0;
    auto slash = part.find('/');
    auto dash = part.find('-');
    if (slash != std::string::npos) {
      auto width = percent_of(std::string_view(part).substr(0, slash));
      auto index = parse_uint(trim(std::string_view(part).substr(slash + 1)), 10);
      if (!width || !index || *index == 0) return failf("bad --time slice '{}'; give it as 10%/2", part);
      from = *width * static_cast<double>(*index - 1);
      to = *width * static_cast<double>(*index);
    } else if (dash != std::string::npos) {
      auto start = percent_of(std::string_view(part).substr(0, dash));
      auto end = percent_of(std::string_view(part).substr(dash + 1));
      if (!start || !end || *end < *start) return failf("bad --time range '{}'; give it as 0%-10%", part);
      from = *start;
      to = *end;
    } else {
      return failf("bad --time slice '{}'; give 10%/2 or 0%-10%", part);
    }
    if (from > 1.0 || to > 1.0) return failf("--time slice '{}' reaches beyond the recording (100%)", part);
    ranges.push_back({first + static_cast<uint64_t>(std::llround(from * static_cast<double>(total))),
                      first + static_cast<uint64_t>(std::llround(to * static_cast<double>(total)))});
  }
  if (ranges.empty()) return failf("'{}' is not a time slice; give 10%/2 or 0%-10%", text);
  return ranges;
}

bool outside_time_ranges(const std::vector<TimeRange>& ranges, uint64_t time) {
  if (ranges.empty() || time == 0) return false;
  for (const TimeRange& range : ranges) {
    bool before = range.start != 0 && time < range.start;
    bool after = range.end != 0 && time > range.end;
    if (!before && !after) return false;
  }
  return true;
}

bool ScriptFilter::skip_time(uint64_t time) const { return outside_time_ranges(times, time); }

bool ScriptFilter::skip_cpu(uint32_t cpu) const {
  if (cpus.empty() || cpu == UINT32_MAX) return false;
  return cpu >= cpus.size() || !cpus[cpu];
}

bool ScriptFilter::skip_thread(std::string_view comm, int32_t pid, int32_t tid) const {
  if (!comms.empty() && std::find(comms.begin(), comms.end(), comm) == comms.end()) return true;
  if (!pids.empty() && std::find(pids.begin(), pids.end(), pid) == pids.end()) return true;
  if (!tids.empty() && std::find(tids.begin(), tids.end(), tid) == tids.end()) return true;
  return false;
}

bool ScriptFilter::skip_dso(bool mapped, std::string_view short_name, std::string_view long_name) const {
  if (dsos.empty()) return false;
  if (!mapped) return true;
  return std::find(dsos.begin(), dsos.end(), short_name) == dsos.end() &&
         std::find(dsos.begin(), dsos.end(), long_name) == dsos.end();
}

bool ScriptFilter::skip_symbol(const std::string_view* symbol, uint64_t symbol_start, bool mapped,
                               uint64_t address) const {
  if (!filters_symbols) return false;
  if (symbol != nullptr) {
    if (std::find(symbols.begin(), symbols.end(), *symbol) != symbols.end()) return false;
    if (std::find(symbols.begin(), symbols.end(), fmt::format("{:#x}", symbol_start)) != symbols.end())
      return false;
  }
  if (!mapped) return true;
  for (uint64_t start : symbol_addresses)
    if (address == start || (address_range != 0 && address >= start && address - start < address_range))
      return false;
  return true;
}

void ScriptFilter::set_symbol_list(std::string_view text) {
  filters_symbols = true;
  for (std::string& entry : split_comma_list(text)) {
    // A whole hex number (trailing blanks allowed) is an address, as strtoul(.., 16) reads it.
    size_t from = entry.starts_with("0x") || entry.starts_with("0X") ? 2 : 0, digits = from;
    while (digits < entry.size() && std::isxdigit(static_cast<unsigned char>(entry[digits]))) ++digits;
    bool blanks_after = std::all_of(entry.begin() + static_cast<std::ptrdiff_t>(digits), entry.end(),
                                    [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
    auto value =
        digits > from && blanks_after ? parse_uint(entry.substr(from, digits - from), 16) : std::nullopt;
    if (value)
      symbol_addresses.push_back(*value);
    else
      symbols.push_back(std::move(entry));
  }
}

std::vector<std::string> split_comma_list(std::string_view text) {
  std::vector<std::string> out;
  for (const auto& item : split(text, ','))
    if (!item.empty()) out.emplace_back(item);
  return out;
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  for (char c : text) {
    if (c == ',' || c == ' ') {
      if (!current.empty()) out.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

Result<std::vector<int32_t>> parse_id_list(std::string_view text, std::string_view option) {
  std::vector<int32_t> ids;
  for (const std::string& item : split_list(text)) {
    auto value = parse_uint(item, 10);
    if (!value || *value > INT32_MAX) return failf("{} takes numbers, not '{}'", option, item);
    ids.push_back(static_cast<int32_t>(*value));
  }
  return ids;
}

}  // namespace sonde::analysis
