#pragma once
// CPU numbering as the kernel lists it ("0-3,5").
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::kernel {

// Parses a CPU list such as "0-3,5" (also perf's -C argument).
Result<std::vector<int>> parse_cpu_list(std::string_view text);
// The online CPUs, from /sys/devices/system/cpu/online.
std::vector<int> online_cpus();

// Where a CPU sits: its package (socket), die, core and NUMA node ids as sysfs numbers them; -1
// where sysfs does not say (a kernel without dies has one die, 0; without NUMA, node 0).
struct CpuPlace {
  int socket = -1, die = 0, core = -1, node = 0;
};
CpuPlace cpu_place(int cpu);

}  // namespace sonde::kernel
