#include "capture/open_event.hpp"

#include <cerrno>

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

}  // namespace sonde::capture
