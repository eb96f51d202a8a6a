#include "pipeline/mem_record.hpp"

#include <fmt/format.h>

#include "kernel/pmu_sysfs.hpp"

namespace sonde::pipeline {

namespace {

// The PMU's events for loads and stores, as perf 6.1's mem-events name them per architecture.
struct MemEvents {
  std::string load, store;
};

std::optional<MemEvents> memory_sampling_events(unsigned ldlat) {
  for (const char* cpu_pmu : {"cpu", "cpu_core"}) {
    auto pmu = kernel::read_pmu(cpu_pmu);
    if (pmu && pmu->event("mem-loads"))
      return MemEvents{fmt::format("{}/mem-loads,ldlat={}/P", cpu_pmu, ldlat),
                       pmu->event("mem-stores") ? fmt::format("{}/mem-stores/P", cpu_pmu) : std::string()};
  }
  if (kernel::pmu_exists("ibs_op")) return MemEvents{"ibs_op//", "ibs_op//"};
  if (kernel::pmu_exists("arm_spe_0"))
    return MemEvents{
        fmt::format("arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,store_filter=0,min_latency={}/", ldlat),
        "arm_spe_0/ts_enable=1,pa_enable=1,load_filter=0,store_filter=1/"};
  return std::nullopt;
}

}  // namespace

Result<std::vector<std::string>> mem_record_arguments(const MemRecordRequest& request) {
  const char* tool = request.tool == MemTool::mem ? "mem" : "c2c";
  auto events = memory_sampling_events(request.ldlat);
  if (!events)
    return failf(
        "{} record samples memory accesses with the CPU's memory-sampling unit, and this machine has none "
        "(Intel PEBS load latency: cpu/events/mem-loads, AMD IBS: ibs_op, Arm SPE: arm_spe_0 under "
        "{}); record on a machine that has one",
        tool, kernel::pmu_sysfs_root());
  std::vector<std::string> args = {"record", "-W", "-d"};
  if (request.tool == MemTool::c2c) {
    args.insert(args.end(), {"--phys-data", "--sample-cpu"});
  } else {
    if (request.phys_data) args.emplace_back("--phys-data");
    if (request.data_page_size) args.emplace_back("--data-page-size");
  }
  bool same_event = events->load == events->store;
  if (request.loads) args.insert(args.end(), {"-e", events->load});
  if (request.stores && !(same_event && request.loads)) {
    if (events->store.empty())
      return failf("this CPU's PMU has no mem-stores event; record loads only ({} -t load record)", tool);
    args.insert(args.end(), {"-e", events->store});
  }
  if (request.all_user) args.emplace_back("--all-user");
  if (request.all_kernel) args.emplace_back("--all-kernel");
  return args;
}

}  // namespace sonde::pipeline
