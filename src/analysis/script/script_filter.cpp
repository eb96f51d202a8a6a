#include "analysis/script/script_filter.hpp"

#include <fmt/format.h>

#include <algorithm>

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

bool ScriptFilter::skip_time(uint64_t time) const {
  if (times.empty() || time == 0) return false;
  for (const TimeRange& range : times) {
    bool before = range.start != 0 && time < range.start;
    bool after = range.end != 0 && time > range.end;
    if (!before && !after) return false;
  }
  return true;
}

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
