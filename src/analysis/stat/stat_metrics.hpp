#pragma once
// The derived figures perf stat prints after '#' ("shadow stats"): CPUs utilized, rates per
// second, GHz, insn per cycle, miss ratios. Computed from the other counters of the same
// aggregation unit (the whole target, one CPU, one thread).
#include <optional>
#include <string>
#include <vector>

#include "analysis/stat/counter_stats.hpp"
#include "events/event_spec.hpp"

namespace sonde::analysis {

enum class MetricStyle {
  ratio,         // "%8.3f unit"      CPUs utilized, K/sec, GHz
  per_insn,      // "%7.2f  unit"     insn per cycle, stalled cycles per insn
  percent,       // "%7.2f%% unit"    of all branches ...
  wide_percent,  // "%8.3f %% unit" of all cache refs (perf's own exception)
};

struct Metric {
  double value = 0;
  std::string unit;  // "CPUs utilized", "K/sec", "GHz", "insn per cycle", "of all branches"
  MetricStyle style = MetricStyle::ratio;
};

// One event's value as the metric rules see it.
struct MetricInput {
  const events::EventSpec* spec = nullptr;
  CounterValue value;
};

// The metric for events[index], or nullopt when perf prints none for it. elapsed_ns is the
// wall time of the measurement (for "CPUs utilized").
std::optional<Metric> metric_for(const std::vector<MetricInput>& events, size_t index, double elapsed_ns);

// perf stat --metric-only's rules: which metrics get a column (not the rates, not "CPUs
// utilized"), and a column's unit ("of all ..." named after its event, perf's fixunit).
bool metric_only_shows(const std::string& unit);
std::string metric_only_unit(const std::string& unit, const std::string& event_name);

// perf stat --metric-only's header: the unit of each event's metric as perf's shadow code names it
// whatever was counted, the rates and "CPUs utilized" left out, "of all ..." named after its event.
std::vector<std::string> metric_only_header(const std::vector<events::EventSpec>& events);

// perf shows clock events (task-clock, cpu-clock) in msec; everything else as counted.
bool is_clock_event(const events::EventSpec& spec);

}  // namespace sonde::analysis
