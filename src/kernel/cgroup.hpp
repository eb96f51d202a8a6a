#pragma once
// Finding a cgroup for perf's cgroup filter (-G): perf_event_open takes the cgroup directory's
// fd as its pid with PERF_FLAG_PID_CGROUP.
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/unique_fd.hpp"

namespace sonde::kernel {

// Opens cgroup `name` (a path below the hierarchy root, as perf's -G takes it) in the cgroup v2
// hierarchy or a v1 hierarchy with the perf_event controller.
Result<UniqueFd> open_perf_cgroup(const std::string& name);

struct PerfCgroup {
  uint64_t id = 0;   // the kernel's cgroup id, as samples' PERF_SAMPLE_CGROUP carries it
  std::string path;  // below the hierarchy root, "/" for the root
};
// Every cgroup of that hierarchy, as perf's record --all-cgroups walks it: each directory before
// its children, the children in directory order. Empty when no such hierarchy is mounted.
std::vector<PerfCgroup> list_perf_cgroups();

}  // namespace sonde::kernel
