#pragma once
// perf stat's options that only a CPU PMU (or a hybrid, TSX, SMI-freezing or uncore IIO one) can
// serve: -M, --topdown, --smi-cost, -T, --iostat, --cputype, --percore-show-thread. Each is
// checked against what this machine's PMUs offer and refused with perf's reason when they lack it.
#include <optional>
#include <string>

#include "base/error.hpp"

namespace sonde::pipeline {

struct PmuOnlyRequests {
  std::string metrics;                // -M
  bool topdown = false;               // --topdown
  std::optional<int> td_level;        // --td-level
  bool smi_cost = false;              // --smi-cost
  bool transaction = false;           // -T
  std::optional<std::string> iostat;  // --iostat[=list]
  std::string cputype;                // --cputype core|atom
  bool percore_show_thread = false;   // --percore-show-thread
};

// Whether the CPU PMU (cpu, or a hybrid machine's cpu_core) names this event in sysfs.
bool cpu_pmu_has_event(const std::string& event);

// Fails with one line naming what this machine lacks (or what sonde does not do yet) for the first
// request that cannot be served; succeeds when nothing was requested.
Result<void> check_pmu_only_requests(const PmuOnlyRequests& requests, bool system_wide);

}  // namespace sonde::pipeline
