#pragma once
// Finding a cgroup for perf's cgroup filter (-G): perf_event_open takes the cgroup directory's
// fd as its pid with PERF_FLAG_PID_CGROUP.
#include <string>

#include "base/error.hpp"
#include "base/unique_fd.hpp"

namespace sonde::kernel {

// Opens cgroup `name` (a path below the hierarchy root, as perf's -G takes it) in the cgroup v2
// hierarchy or a v1 hierarchy with the perf_event controller.
Result<UniqueFd> open_perf_cgroup(const std::string& name);

}  // namespace sonde::kernel
