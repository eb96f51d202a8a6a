#include "capture/open_event.hpp"

#include <fmt/format.h>

#include <cerrno>

#include "events/modifiers.hpp"

namespace sonde::capture {

Result<kernel::PerfEventFd> open_event(perf_event_attr& attr, pid_t pid, int cpu, int group_fd,
                                       unsigned long flags) {
  auto fd = kernel::PerfEventFd::open(attr, pid, cpu, group_fd, flags);
  if (!fd && fd.error().sys_errno == EINVAL && (attr.exclude_guest || attr.exclude_host)) {
    attr.exclude_guest = attr.exclude_host = 0;
    fd = kernel::PerfEventFd::open(attr, pid, cpu, group_fd, flags);
  }
  return fd;
}

Result<void> fall_back_to_cpu_clock(std::vector<events::EventSpec>& events, Diagnostics& diagnostics) {
  for (auto& event : events) {
    if (event.attr.type != PERF_TYPE_HARDWARE) continue;
    perf_event_attr probe = event.attr;
    probe.disabled = 1;
    auto fd = open_event(probe, 0, -1);
    int err = fd ? 0 : fd.error().sys_errno;
    // The errors perf's evsel__fallback takes for "no such hardware event here".
    if (err != ENOENT && err != ENXIO && err != ENODEV && err != EOPNOTSUPP) continue;
    if ((event.attr.config & 0xffffffff) != PERF_COUNT_HW_CPU_CYCLES)
      return fail(fmt::format("The {} event is not supported.", event.name));
    diagnostics.note("The cycles event is not supported, trying to fall back to cpu-clock-ticks");
    event.attr.type = PERF_TYPE_SOFTWARE;
    event.attr.config = PERF_COUNT_SW_CPU_CLOCK;
    // perf drops the name and makes a new one from the attr: "cycles:u" becomes "cpu-clock:uH".
    event.name = "cpu-clock" + events::modifier_suffix_from_attr(event.attr);
  }
  return {};
}

}  // namespace sonde::capture
