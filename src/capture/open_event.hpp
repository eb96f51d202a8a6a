#pragma once
// Opening one perf event the way perf's evsel open does, fallbacks included.
#include <linux/perf_event.h>
#include <sys/types.h>

#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "events/event_spec.hpp"
#include "kernel/perf_event.hpp"

namespace sonde::capture {

// Opens `attr`; when the kernel says EINVAL and guest/host filtering was asked for, retries
// without it (PMUs such as msr refuse those bits), as perf does. `attr` keeps the relaxation so
// the next slots open directly. A failure carries the errno.
Result<kernel::PerfEventFd> open_event(perf_event_attr& attr, pid_t pid, int cpu, int group_fd = -1,
                                       unsigned long flags = 0);

// perf record's answer to a machine without a hardware PMU (most VMs and cloud machines): each
// hardware event is tried once on this thread; cycles the kernel refuses becomes cpu-clock with
// the same modifiers ("cycles:k" records as "cpu-clock:k"; a note says so), and any other
// refused hardware event fails in perf's words, "The instructions event is not supported.".
Result<void> fall_back_to_cpu_clock(std::vector<events::EventSpec>& events, Diagnostics& diagnostics);

// perf's answer to kernel.perf_event_paranoid above 1 for a user without CAP_PERFMON: an event
// that would count the kernel too and that the kernel refuses (EACCES, EPERM) is tried for user
// space only; when that opens it is kept so, exclude_kernel and exclude_hv set and "u" added to
// its modifiers ("task-clock:u"), as perf's evsel__fallback does. Unlike perf, an event that
// would be refused anyway (a tracepoint) keeps its name. The note is perf's -v line.
void fall_back_to_user_only(std::vector<events::EventSpec>& events, Diagnostics& diagnostics);

// What to add to "cannot open ...: EACCES" for a refusal by permission: what the machine's
// kernel.perf_event_paranoid allows, and what would let this open. Empty for other errors.
std::string permission_hint(int err, bool every_cpu);

}  // namespace sonde::capture
