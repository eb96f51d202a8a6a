#include "analysis/stat/stat_metrics.hpp"

#include <linux/perf_event.h>

#include <algorithm>

namespace sonde::analysis {

namespace {

bool is(const events::EventSpec& spec, uint32_t type, uint64_t config) {
  return spec.attr.type == type && spec.attr.config == config;
}

// The first counted event of the same exclusion modifiers matching type/config.
const CounterValue* find(const std::vector<MetricInput>& events, const events::EventSpec& like, uint32_t type,
                         uint64_t config) {
  for (const auto& event : events) {
    if (!event.spec || !event.value.counted() || !is(*event.spec, type, config)) continue;
    if (event.spec->attr.exclude_user != like.attr.exclude_user ||
        event.spec->attr.exclude_kernel != like.attr.exclude_kernel)
      continue;
    return &event.value;
  }
  return nullptr;
}

const CounterValue* find_clock(const std::vector<MetricInput>& events, const events::EventSpec& like) {
  if (auto* task = find(events, like, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK)) return task;
  return find(events, like, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
}

uint64_t cache_config(uint64_t cache, uint64_t op, uint64_t result) {
  return cache | (op << 8) | (result << 16);
}

Metric rate_per_second(double count, double clock_ns) {
  double rate = clock_ns > 0 ? count * 1e9 / clock_ns : 0;
  // perf steps up a prefix only when the value is strictly above 1000.
  const char* prefixes[] = {"/sec", "K/sec", "M/sec", "G/sec"};
  size_t step = 0;
  while (step < 3 && rate > 1000.0) {
    rate /= 1000.0;
    ++step;
  }
  return {rate, prefixes[step]};
}

std::optional<Metric> percent_of(const CounterValue& part, const CounterValue* whole, std::string unit) {
  if (!whole || whole->value == 0) return std::nullopt;
  return Metric{100.0 * part.value / whole->value, std::move(unit), MetricStyle::percent};
}

}  // namespace

bool is_clock_event(const events::EventSpec& spec) {
  return is(spec, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) ||
         is(spec, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
}

std::optional<Metric> metric_for(const std::vector<MetricInput>& events, size_t index, double elapsed_ns) {
  const auto& input = events[index];
  if (!input.spec || !input.value.counted()) return std::nullopt;
  const auto& spec = *input.spec;
  const auto& value = input.value;

  if (is_clock_event(spec)) {
    if (elapsed_ns <= 0) return std::nullopt;
    return Metric{value.value / elapsed_ns, "CPUs utilized"};
  }
  if (spec.attr.type == PERF_TYPE_HARDWARE) {
    switch (spec.attr.config) {
      case PERF_COUNT_HW_CPU_CYCLES: {
        const auto* clock = find_clock(events, spec);
        if (!clock || clock->value == 0) return std::nullopt;
        return Metric{value.value / clock->value, "GHz"};
      }
      case PERF_COUNT_HW_INSTRUCTIONS: {
        const auto* cycles = find(events, spec, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
        if (!cycles || cycles->value == 0) return std::nullopt;
        return Metric{value.value / cycles->value, "insn per cycle", MetricStyle::per_insn};
      }
      case PERF_COUNT_HW_STALLED_CYCLES_FRONTEND:
      case PERF_COUNT_HW_STALLED_CYCLES_BACKEND: {
        const auto* cycles = find(events, spec, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
        std::string unit = spec.attr.config == PERF_COUNT_HW_STALLED_CYCLES_FRONTEND ? "frontend cycles idle"
                                                                                     : "backend cycles idle";
        return percent_of(value, cycles, unit);
      }
      case PERF_COUNT_HW_BRANCH_MISSES:
        return percent_of(value, find(events, spec, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
                          "of all branches");
      case PERF_COUNT_HW_CACHE_MISSES:
        if (auto metric =
                percent_of(value, find(events, spec, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES),
                           "of all cache refs")) {
          metric->style = MetricStyle::wide_percent;
          return metric;
        }
        return std::nullopt;
      default:
        break;
    }
  }
  if (spec.attr.type == PERF_TYPE_HW_CACHE) {
    uint64_t cache = spec.attr.config & 0xff, op = (spec.attr.config >> 8) & 0xff,
             result = spec.attr.config >> 16;
    if (result == PERF_COUNT_HW_CACHE_RESULT_MISS) {
      static const char* const kCacheNames[] = {"L1-dcache",  "L1-icache", "LL-cache", "dTLB-cache",
                                                "iTLB-cache", "branch",    "node"};
      const auto* accesses =
          find(events, spec, PERF_TYPE_HW_CACHE, cache_config(cache, op, PERF_COUNT_HW_CACHE_RESULT_ACCESS));
      std::string what = cache < std::size(kCacheNames) ? kCacheNames[cache] : "cache";
      return percent_of(value, accesses, "of all " + what + " accesses");
    }
  }
  // Everything else (software events, tracepoints, PMU events): its rate per second of clock.
  if (spec.attr.type == PERF_TYPE_SOFTWARE && spec.attr.config == PERF_COUNT_SW_DUMMY) return std::nullopt;
  const auto* clock = find_clock(events, spec);
  if (!clock) return std::nullopt;
  return rate_per_second(value.value, clock->value);
}

bool metric_only_shows(const std::string& unit) {
  return unit.find("/sec") == std::string::npos && unit.find("CPUs utilized") == std::string::npos;
}

std::string metric_only_unit(const std::string& unit, const std::string& event_name) {
  return unit.starts_with("of all") ? event_name + " " + unit : unit;
}

std::vector<std::string> metric_only_header(const std::vector<events::EventSpec>& events) {
  // Every event as counted once: the metrics perf's header mode names.
  std::vector<MetricInput> inputs;
  for (const auto& event : events) {
    CounterValue once;
    once.value = 1;
    once.raw = once.enabled = once.running = 1;
    inputs.push_back({&event, once});
  }
  bool has_clock = std::any_of(events.begin(), events.end(), [](const auto& e) { return is_clock_event(e); });
  std::vector<std::string> units;
  for (size_t i = 0; i < events.size(); ++i) {
    std::optional<Metric> metric = metric_for(inputs, i, 1);
    std::string unit = metric ? metric->unit : "";
    const auto& attr = events[i].attr;
    if (attr.type == PERF_TYPE_HARDWARE && attr.config == PERF_COUNT_HW_CPU_CYCLES && !has_clock)
      unit = "Ghz";  // perf's spelling when no clock was counted
    if (attr.type == PERF_TYPE_HARDWARE && attr.config == PERF_COUNT_HW_INSTRUCTIONS) unit = "insn per cycle";
    if (unit.empty() || !metric_only_shows(unit)) continue;
    units.push_back(metric_only_unit(unit, events[i].name));
  }
  return units;
}

}  // namespace sonde::analysis
