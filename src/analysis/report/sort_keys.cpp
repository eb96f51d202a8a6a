#include "analysis/report/sort_keys.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "base/strings.hpp"

namespace sonde::analysis {

Result<std::vector<SortKey>> parse_sort_keys(std::string_view list) {
  std::vector<SortKey> keys;
  for (const std::string& raw : split(list, ',')) {
    std::string_view name = trim(raw);
    SortKey key;
    if (name == "comm")
      key = SortKey::comm;
    else if (name == "pid" || name == "thread")
      key = SortKey::pid;
    else if (name == "dso")
      key = SortKey::dso;
    else if (name == "sym" || name == "symbol")
      key = SortKey::sym;
    else if (name == "srcline")
      key = SortKey::srcline;
    else if (name == "parent")
      key = SortKey::parent;
    else if (name == "cpu")
      key = SortKey::cpu;
    else if (name == "time")
      key = SortKey::time;
    else if (name == "trace")
      key = SortKey::trace;
    else if (name == "overhead" || name == "overhead_children" || name == "sample" || name == "period")
      continue;
    else
      return failf("unknown --sort key '{}' (known: comm, pid, dso, sym, srcline, parent, cpu, trace, time)",
                   name);
    bool seen = false;
    for (SortKey k : keys) seen |= k == key;
    if (!seen) keys.push_back(key);
  }
  if (keys.empty())
    return failf("--sort needs at least one key (comm, pid, dso, sym, srcline, parent, cpu, trace, time)");
  return keys;
}

Result<FieldSpec> parse_report_fields(std::string_view text) {
  FieldSpec spec;
  if (text.starts_with('+')) {
    spec.strict = false;
    text.remove_prefix(1);
  }
  for (const std::string& raw : split(text, ',')) {
    std::string_view name = trim(raw);
    ReportField field;
    field.is_figure = true;
    if (name == "overhead")
      field.figure = ReportFigure::overhead;
    else if (name == "overhead_children")
      field.figure = ReportFigure::overhead_children;
    else if (name == "overhead_sys")
      field.figure = ReportFigure::overhead_sys;
    else if (name == "overhead_us")
      field.figure = ReportFigure::overhead_us;
    else if (name == "sample")
      field.figure = ReportFigure::sample;
    else if (name == "period")
      field.figure = ReportFigure::period;
    else {
      auto keys = parse_sort_keys(name);
      if (!keys || keys->size() != 1)
        return fail_usage(
            fmt::format("unknown --fields field '{}' (known: overhead, overhead_children, overhead_sys, "
                        "overhead_us, sample, "
                        "period, and the sort keys comm, pid, dso, sym, srcline, parent, cpu, trace, time)",
                        name));
      field = {false, ReportFigure::overhead, keys->front()};
    }
    if (std::find(spec.fields.begin(), spec.fields.end(), field) == spec.fields.end())
      spec.fields.push_back(field);
  }
  if (spec.fields.empty()) return fail_usage("--fields needs at least one field (overhead, sym, ...)");
  return spec;
}

std::string_view sort_key_header(SortKey key) {
  switch (key) {
    case SortKey::comm:
      return "Command";
    case SortKey::pid:
      return "    Pid:Command";
    case SortKey::dso:
      return "Shared Object";
    case SortKey::sym:
      return "Symbol";
    case SortKey::srcline:
      return "Source:Line";
    case SortKey::parent:
      return "Parent symbol";
    case SortKey::cpu:
      return "CPU";
    case SortKey::trace:
      return "Trace output";
    case SortKey::time:
      return "Time";
  }
  return "";
}

Result<uint64_t> parse_time_quantum(std::string_view text) {
  static constexpr std::pair<std::string_view, uint64_t> kUnits[] = {
      {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
  uint64_t scale = 1;
  std::string_view number = text;
  for (const auto& [unit, ns] : kUnits)
    if (text.size() > unit.size() && text.ends_with(unit)) {
      number = text.substr(0, text.size() - unit.size());
      scale = ns;
      break;
    }
  auto value = parse_uint(number, 10);
  if (!value || *value == 0)
    return failf("bad --time-quantum '{}'; give a time like 100ms (ns, us, ms or s)", text);
  return *value * scale;
}

bool is_frame_key(SortKey key) {
  return key == SortKey::dso || key == SortKey::sym || key == SortKey::srcline;
}

}  // namespace sonde::analysis
