#pragma once
// Opening one perf event the way perf's evsel open does, fallbacks included.
#include <linux/perf_event.h>
#include <sys/types.h>

#include "base/error.hpp"
#include "kernel/perf_event.hpp"

namespace sonde::capture {

// Opens `attr`; when the kernel says EINVAL and guest/host filtering was asked for, retries
// without it (PMUs such as msr refuse those bits), as perf does. `attr` keeps the relaxation so
// the next slots open directly. A failure carries the errno.
Result<kernel::PerfEventFd> open_event(perf_event_attr& attr, pid_t pid, int cpu, int group_fd = -1,
                                       unsigned long flags = 0);

}  // namespace sonde::capture
