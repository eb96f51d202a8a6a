#include "pipeline/stat_pmu_requests.hpp"

#include "base/file.hpp"
#include "kernel/pmu_sysfs.hpp"

namespace sonde::pipeline {

namespace {

// The core PMU of a non-hybrid x86 machine, or the P-core PMU of a hybrid one.
bool has_cpu_pmu() { return kernel::pmu_exists("cpu") || kernel::pmu_exists("cpu_core"); }

}  // namespace

bool cpu_pmu_has_event(const std::string& event) {
  for (const char* pmu : {"cpu", "cpu_core"})
    if (path_exists(kernel::pmu_sysfs_root() + "/" + pmu + "/events/" + event)) return true;
  return false;
}

Result<void> check_pmu_only_requests(const PmuOnlyRequests& requests, bool system_wide) {
  if (requests.td_level && (*requests.td_level < 0 || *requests.td_level > 2))
    return fail("--td-level takes 0, 1 or 2 (0: the deepest level)");
  if (!requests.metrics.empty()) {
    if (!has_cpu_pmu())
      return failf(
          "-M {}: metrics are computed from the CPU's PMU events, and this machine has no CPU PMU "
          "(no hardware counters); count software events and tracepoints with -e",
          requests.metrics);
    return failf("-M {}: sonde has no per-CPU-model metric tables yet; count the metric's events with -e",
                 requests.metrics);
  }
  if (requests.topdown) {
    // perf's two reasons, in its order.
    if (!system_wide) return fail("--topdown configures top-down events for the whole system; add -a");
    if (!cpu_pmu_has_event("topdown-total-slots") && !cpu_pmu_has_event("slots"))
      return fail(
          "--topdown: this system does not support top-down (no topdown or slots events in the CPU PMU)");
    return fail("--topdown: sonde has no top-down metric tables yet; count the topdown-* events with -e");
  }
  if (requests.smi_cost) {
    if (!path_exists(kernel::pmu_sysfs_root() + "/cpu/freeze_on_smi"))
      return fail("--smi-cost: freeze_on_smi is not supported (the CPU PMU has no freeze_on_smi control)");
    return fail("--smi-cost: sonde does not measure SMI cost yet; count msr/smi/ with -e");
  }
  if (requests.transaction) {
    if (!cpu_pmu_has_event("tx-start"))
      return fail("-T: cannot set up transaction events (the CPU PMU has no TSX events: cpu/tx-start/)");
    return fail(
        "-T: sonde does not print transaction statistics yet; count cpu/tx-start/ and cpu/cycles-t/ with -e");
  }
  if (requests.iostat) {
    if (!kernel::pmu_exists("uncore_iio_0"))
      return fail("--iostat: unsupported uncore PMU configuration (needs the Intel uncore IIO PMUs)");
    return fail("--iostat: sonde does not print I/O statistics from the uncore IIO PMUs yet");
  }
  if (!requests.cputype.empty()) {
    bool hybrid = kernel::pmu_exists("cpu_core") || kernel::pmu_exists("cpu_atom");
    if (!hybrid || (requests.cputype != "core" && requests.cputype != "atom"))
      return failf("--cputype {} is not supported: this is for hybrid CPUs (cpu_core and cpu_atom PMUs)",
                   requests.cputype);
    return failf(
        "--cputype {}: sonde does not restrict events to one core type yet; name the PMU (-e cpu_{}/cycles/)",
        requests.cputype, requests.cputype);
  }
  if (requests.percore_show_thread) {
    if (!has_cpu_pmu())
      return fail(
          "--percore-show-thread goes with cpu/EVENT,percore/ events, and this machine has no CPU PMU");
    return fail("--percore-show-thread: sonde does not sum percore events over SMT siblings yet");
  }
  return {};
}

}  // namespace sonde::pipeline
