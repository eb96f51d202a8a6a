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

}  // namespace sonde::kernel
