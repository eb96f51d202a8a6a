#pragma once
// The rows of a perf stat report: each event's value per aggregation unit (everything, one
// CPU for -A, one thread for --per-thread), with its state and derived metric.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/stat/counter_stats.hpp"
#include "analysis/stat/stat_metrics.hpp"
#include "events/event_spec.hpp"

namespace sonde::analysis {

struct StatLinePrefix {
  // none: the whole target; cpu (-A); thread (--per-thread); or a group of CPUs (--per-core ...).
  enum class Kind { none, cpu, thread, core, die, socket, node } kind = Kind::none;
  int cpu = -1;
  std::string comm;
  pid_t tid = -1;
  int socket = -1, die = -1, core = -1, node = -1;  // the group's ids
  int cpus = 0;                                     // how many CPUs the group counted on
};

struct StatCounterLine {
  enum class State { counted, not_counted, not_supported };
  State state = State::counted;
  StatLinePrefix prefix;
  std::string name;
  std::string cgroup;       // -G: the cgroup the event counted in, printed after its name
  std::string unit;         // "msec" for clock events, else empty
  bool fractional = false;  // printed with two decimals (clock events in msec)
  double value = 0;         // in `unit`
  uint64_t run_time_ns = 0;
  double running_percent = 100;
  std::optional<Metric> metric;
  std::optional<double> noise_percent;  // -r: the spread, "( +- x.xx% )"
};

enum class Aggregation { global, per_cpu, per_thread, per_core, per_die, per_socket, per_node };

// One counter instance's identity, as the capture layer opened it, and where its CPU sits.
struct StatSlot {
  int cpu = -1;
  pid_t tid = -1;
  std::string comm;
  int socket = -1, die = -1, core = -1, node = -1;
};

struct StatTableOptions {
  Aggregation aggregation = Aggregation::global;
  bool scale = true;  // multiplexed counts scaled to the enabled time (--no-scale: as read)
};

// Builds the rows: event by event and, within an event, unit by unit; for groups of CPUs
// (--per-core ...) group by group and, within a group, event by event, as perf. `slot_readings[e][s]`
// is event e's reading on slot s; `supported[e]` false prints "<not supported>". elapsed_ns is
// the measured (or interval) wall time, for "CPUs utilized".
std::vector<StatCounterLine> build_stat_lines(
    const std::vector<events::EventSpec>& events,
    const std::vector<std::vector<kernel::CounterReading>>& slot_readings, const std::vector<bool>& supported,
    const std::vector<StatSlot>& slots, const StatTableOptions& options, double elapsed_ns);

// Accumulates the same rows over -r repeats and yields their means with the spread.
class StatRepeats {
 public:
  void add(const std::vector<StatCounterLine>& run);
  std::vector<StatCounterLine> mean_lines() const;

 private:
  std::vector<StatCounterLine> last_;
  std::vector<RunningStats> values_;
  std::vector<RunningStats> metrics_;
  std::vector<RunningStats> run_times_;
};

}  // namespace sonde::analysis
