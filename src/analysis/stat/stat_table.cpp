#include "analysis/stat/stat_table.hpp"

#include <algorithm>
#include <map>

namespace sonde::analysis {

namespace {

// The aggregation units, each a list of slot indexes, in perf's order (CPU number, thread id).
std::vector<std::pair<StatLinePrefix, std::vector<size_t>>> units_of(const std::vector<StatSlot>& slots,
                                                                     Aggregation aggregation) {
  std::vector<std::pair<StatLinePrefix, std::vector<size_t>>> units;
  if (aggregation == Aggregation::global) {
    std::vector<size_t> all(slots.size());
    for (size_t i = 0; i < slots.size(); ++i) all[i] = i;
    units.push_back({StatLinePrefix{}, all});
    return units;
  }
  std::map<long, std::pair<StatLinePrefix, std::vector<size_t>>> by_key;
  for (size_t i = 0; i < slots.size(); ++i) {
    StatLinePrefix prefix;
    long key;
    if (aggregation == Aggregation::per_cpu) {
      prefix.kind = StatLinePrefix::Kind::cpu;
      prefix.cpu = slots[i].cpu;
      key = slots[i].cpu;
    } else {
      prefix.kind = StatLinePrefix::Kind::thread;
      prefix.tid = slots[i].tid;
      prefix.comm = slots[i].comm;
      key = slots[i].tid;
    }
    auto& unit = by_key[key];
    unit.first = prefix;
    unit.second.push_back(i);
  }
  for (auto& [key, unit] : by_key) units.push_back(std::move(unit));
  return units;
}

}  // namespace

std::vector<StatCounterLine> build_stat_lines(
    const std::vector<events::EventSpec>& events,
    const std::vector<std::vector<kernel::CounterReading>>& slot_readings, const std::vector<bool>& supported,
    const std::vector<StatSlot>& slots, Aggregation aggregation, double elapsed_ns) {
  auto units = units_of(slots, aggregation);
  // values[u][e]: event e aggregated over unit u.
  std::vector<std::vector<MetricInput>> values(units.size());
  for (size_t u = 0; u < units.size(); ++u) {
    for (size_t e = 0; e < events.size(); ++e) {
      std::vector<kernel::CounterReading> readings;
      for (size_t s : units[u].second)
        if (s < slot_readings[e].size()) readings.push_back(slot_readings[e][s]);
      values[u].push_back({&events[e], aggregate(readings, supported[e])});
    }
  }
  std::vector<StatCounterLine> lines;
  for (size_t e = 0; e < events.size(); ++e) {
    std::vector<size_t> order(units.size());
    for (size_t u = 0; u < units.size(); ++u) order[u] = u;
    // perf lists threads busiest first for each event.
    if (aggregation == Aggregation::per_thread)
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return values[a][e].value.value > values[b][e].value.value;
      });
    for (size_t u : order) {
      const CounterValue& value = values[u][e].value;
      StatCounterLine line;
      line.prefix = units[u].first;
      line.name = events[e].name;
      bool clock = is_clock_event(events[e]);
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
        line.metric = metric_for(values[u], e, elapsed_ns);
      lines.push_back(std::move(line));
    }
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
