#include "analysis/stat/stat_table.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace sonde::analysis {

namespace {

bool groups_cpus(Aggregation aggregation) {
  return aggregation == Aggregation::per_core || aggregation == Aggregation::per_die ||
         aggregation == Aggregation::per_socket || aggregation == Aggregation::per_node;
}

// The unit a slot belongs to, and the key that orders units as perf does (CPU number, thread id,
// or socket, die, core, node ids).
std::pair<StatLinePrefix, std::tuple<long, long, long>> unit_of(const StatSlot& slot,
                                                                Aggregation aggregation) {
  StatLinePrefix prefix;
  switch (aggregation) {
    case Aggregation::global:
      return {prefix, {0, 0, 0}};
    case Aggregation::per_cpu:
      prefix.kind = StatLinePrefix::Kind::cpu;
      prefix.cpu = slot.cpu;
      return {prefix, {slot.cpu, 0, 0}};
    case Aggregation::per_thread:
      prefix.kind = StatLinePrefix::Kind::thread;
      prefix.tid = slot.tid;
      prefix.comm = slot.comm;
      return {prefix, {slot.tid, 0, 0}};
    case Aggregation::per_core:
      prefix.kind = StatLinePrefix::Kind::core;
      prefix.socket = slot.socket, prefix.die = slot.die, prefix.core = slot.core;
      return {prefix, {slot.socket, slot.die, slot.core}};
    case Aggregation::per_die:
      prefix.kind = StatLinePrefix::Kind::die;
      prefix.socket = slot.socket, prefix.die = slot.die;
      return {prefix, {slot.socket, slot.die, 0}};
    case Aggregation::per_socket:
      prefix.kind = StatLinePrefix::Kind::socket;
      prefix.socket = slot.socket;
      return {prefix, {slot.socket, 0, 0}};
    case Aggregation::per_node:
      prefix.kind = StatLinePrefix::Kind::node;
      prefix.node = slot.node;
      return {prefix, {slot.node, 0, 0}};
  }
  return {prefix, {0, 0, 0}};
}

// The aggregation units, each a list of slot indexes, in perf's order.
std::vector<std::pair<StatLinePrefix, std::vector<size_t>>> units_of(const std::vector<StatSlot>& slots,
                                                                     Aggregation aggregation) {
  std::map<std::tuple<long, long, long>, std::pair<StatLinePrefix, std::vector<size_t>>> by_key;
  std::map<std::tuple<long, long, long>, std::set<int>> cpus;
  for (size_t i = 0; i < slots.size(); ++i) {
    auto [prefix, key] = unit_of(slots[i], aggregation);
    auto& unit = by_key[key];
    unit.first = prefix;
    unit.second.push_back(i);
    cpus[key].insert(slots[i].cpu);
  }
  std::vector<std::pair<StatLinePrefix, std::vector<size_t>>> units;
  for (auto& [key, unit] : by_key) {
    unit.first.cpus = static_cast<int>(cpus[key].size());
    units.push_back(std::move(unit));
  }
  if (units.empty() && aggregation == Aggregation::global) units.push_back({StatLinePrefix{}, {}});
  return units;
}

StatCounterLine counter_line(const StatLinePrefix& prefix, const std::vector<MetricInput>& unit_values,
                             size_t e, double elapsed_ns) {
  const events::EventSpec& event = *unit_values[e].spec;
  const CounterValue& value = unit_values[e].value;
  StatCounterLine line;
  line.prefix = prefix;
  line.name = event.name;
  line.cgroup = event.cgroup;
  bool clock = is_clock_event(event);
  line.unit = clock ? "msec" : "";
  line.fractional = clock;
  line.value = clock ? value.value / 1e6 : value.value;
  line.run_time_ns = value.running;
  line.running_percent = value.enabled ? value.running_percent() : 100.0;
  if (!value.supported)
    line.state = StatCounterLine::State::not_supported;
  else if (!value.counted())
    line.state = StatCounterLine::State::not_counted;
  else
    line.metric = metric_for(unit_values, e, elapsed_ns);
  return line;
}

}  // namespace

std::vector<StatCounterLine> build_stat_lines(
    const std::vector<events::EventSpec>& events,
    const std::vector<std::vector<kernel::CounterReading>>& slot_readings, const std::vector<bool>& supported,
    const std::vector<StatSlot>& slots, const StatTableOptions& options, double elapsed_ns) {
  auto units = units_of(slots, options.aggregation);
  // values[u][e]: event e aggregated over unit u.
  std::vector<std::vector<MetricInput>> values(units.size());
  for (size_t u = 0; u < units.size(); ++u) {
    for (size_t e = 0; e < events.size(); ++e) {
      std::vector<kernel::CounterReading> readings;
      for (size_t s : units[u].second)
        if (s < slot_readings[e].size()) readings.push_back(slot_readings[e][s]);
      values[u].push_back({&events[e], aggregate(readings, supported[e], options.scale)});
    }
  }
  std::vector<StatCounterLine> lines;
  if (groups_cpus(options.aggregation)) {
    for (size_t u = 0; u < units.size(); ++u)
      for (size_t e = 0; e < events.size(); ++e)
        lines.push_back(counter_line(units[u].first, values[u], e, elapsed_ns));
    return lines;
  }
  for (size_t e = 0; e < events.size(); ++e) {
    std::vector<size_t> order(units.size());
    for (size_t u = 0; u < units.size(); ++u) order[u] = u;
    // perf lists threads busiest first for each event.
    if (options.aggregation == Aggregation::per_thread)
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return values[a][e].value.value > values[b][e].value.value;
      });
    for (size_t u : order) lines.push_back(counter_line(units[u].first, values[u], e, elapsed_ns));
  }
  return lines;
}

void StatRepeats::add(const std::vector<StatCounterLine>& run) {
  if (values_.size() < run.size()) {
    values_.resize(run.size());
    metrics_.resize(run.size());
    run_times_.resize(run.size());
  }
  for (size_t i = 0; i < run.size(); ++i) {
    if (run[i].state != StatCounterLine::State::counted) continue;
    values_[i].add(run[i].value);
    run_times_[i].add(static_cast<double>(run[i].run_time_ns));
    if (run[i].metric) metrics_[i].add(run[i].metric->value);
  }
  last_ = run;
}

std::vector<StatCounterLine> StatRepeats::mean_lines() const {
  std::vector<StatCounterLine> lines = last_;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (values_[i].count() == 0) continue;
    lines[i].state = StatCounterLine::State::counted;
    lines[i].value = values_[i].mean();
    lines[i].run_time_ns = static_cast<uint64_t>(run_times_[i].mean());
    lines[i].noise_percent = values_[i].relative_stddev_percent();
    if (lines[i].metric && metrics_[i].count()) lines[i].metric->value = metrics_[i].mean();
  }
  return lines;
}

}  // namespace sonde::analysis
