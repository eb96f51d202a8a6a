#include "capture/sampling_session.hpp"

#include <sys/epoll.h>
#include <sys/ioctl.h>

#include <cerrno>

#include "capture/open_event.hpp"

namespace sonde::capture {

Result<SamplingSession> SamplingSession::open(const std::vector<perf_event_attr>& attrs,
                                              const std::vector<std::string>& filters,
                                              const SamplingTarget& target, size_t mmap_pages,
                                              const std::vector<int>& group_leaders) {
  SamplingSession session;
  session.epoll_ = UniqueFd(::epoll_create1(EPOLL_CLOEXEC));
  if (!session.epoll_) return failf("epoll_create1: {}", errno_text(errno));
  session.ids_.resize(attrs.size());
  session.cpu_fds_.resize(attrs.size());
  std::vector<perf_event_attr> opened = attrs;  // open_event may relax them for this kernel
  auto bpf_output = [](const perf_event_attr& attr) {
    return attr.type == PERF_TYPE_SOFTWARE && attr.config == PERF_COUNT_SW_BPF_OUTPUT;
  };
  for (auto& attr : opened) {
    if (!bpf_output(attr)) continue;
    attr.disabled = attr.inherit = attr.enable_on_exec = 0;
  }
  bool by_cgroup = target.kind == SamplingTarget::Kind::system && target.cgroup_fd >= 0;
  std::vector<pid_t> tids = target.kind == SamplingTarget::Kind::system
                                ? std::vector<pid_t>{by_cgroup ? target.cgroup_fd : -1}
                                : target.tids;
  unsigned long open_flags = by_cgroup ? PERF_FLAG_PID_CGROUP : 0;
  for (int cpu : target.cpus) {
    int buffer_fd = -1;  // the first event on this CPU owns its ring buffer
    for (pid_t tid : tids) {
      std::vector<int> slot_fds(attrs.size(), -1);  // this (cpu, thread)'s events, for their groups
      for (size_t a = 0; a < attrs.size(); ++a) {
        // BPF output and --kcore's text changes come from every task on the CPU.
        bool per_cpu = bpf_output(attrs[a]) || attrs[a].text_poke;
        if (per_cpu && tid != tids.front()) continue;
        int group_fd = -1;
        if (a < group_leaders.size() && group_leaders[a] >= 0 && static_cast<size_t>(group_leaders[a]) < a)
          group_fd = slot_fds[static_cast<size_t>(group_leaders[a])];
        auto fd = open_event(opened[a], per_cpu ? -1 : tid, cpu, group_fd, per_cpu ? 0 : open_flags);
        if (!fd) {
          int err = fd.error().sys_errno;
          if (err == ESRCH) return failf("the thread {} is gone", tid);
          if (err == EOPNOTSUPP && attrs[a].branch_sample_type != 0)
            return failf(
                "event #{} cannot sample branch stacks (-b, -j): the PMU hardware or event type "
                "doesn't support branch stack sampling",
                a + 1);
          if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
            return failf("event #{} is not supported on this machine ({}); 'sonde list' shows what is", a + 1,
                         errno_text(err));
          return failf("cannot open event #{} on CPU {}: {}{}", a + 1, cpu, errno_text(err),
                       permission_hint(err, target.kind == SamplingTarget::Kind::system));
        }
        if (a < filters.size() && !filters[a].empty()) {
          if (auto filtered = fd->set_filter(filters[a]); !filtered) return tl::unexpected(filtered.error());
        }
        auto id = fd->id();
        if (!id) return tl::unexpected(id.error());
        session.ids_[a].push_back(*id);
        if (per_cpu) session.cpu_fds_[a].emplace_back(cpu, fd->fd());
        if (buffer_fd < 0) {
          const bool backward = attrs[a].write_backward;
          auto buffer = kernel::RingBuffer::map(fd->fd(), mmap_pages, backward);
          if (!buffer) return tl::unexpected(buffer.error());
          epoll_event event{};
          event.events = EPOLLIN;
          event.data.fd = fd->fd();
          // A flight recorder is read when the recording asks, never because it has data.
          if (!backward && ::epoll_ctl(session.epoll_.get(), EPOLL_CTL_ADD, fd->fd(), &event) != 0)
            return failf("epoll_ctl: {}", errno_text(errno));
          buffer_fd = fd->fd();
          session.buffers_.push_back(std::move(*buffer));
        } else if (::ioctl(fd->fd(), PERF_EVENT_IOC_SET_OUTPUT, buffer_fd) != 0) {
          return failf("cannot share CPU {}'s ring buffer: {}", cpu, errno_text(errno));
        }
        slot_fds[a] = fd->fd();
        session.fds_.push_back(std::move(*fd));
        session.fd_tracks_.push_back(attrs[a].type == PERF_TYPE_SOFTWARE &&
                                     attrs[a].config == PERF_COUNT_SW_DUMMY);
      }
    }
  }
  return session;
}

namespace {

bool selected(SamplingSession::Events which, bool tracks) {
  return which == SamplingSession::Events::all || (which == SamplingSession::Events::tracking) == tracks;
}

}  // namespace

Result<void> SamplingSession::enable(Events which) {
  for (size_t i = 0; i < fds_.size(); ++i)
    if (selected(which, fd_tracks_[i]))
      if (auto enabled = fds_[i].enable(); !enabled) return enabled;
  return {};
}

void SamplingSession::disable(Events which) {
  for (size_t i = 0; i < fds_.size(); ++i)
    if (selected(which, fd_tracks_[i])) (void)fds_[i].disable();
}

Result<void> SamplingSession::watch(const SamplingSession& other) {
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = other.epoll_.get();
  if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, other.epoll_.get(), &event) != 0)
    return failf("epoll_ctl: {}", errno_text(errno));
  return {};
}

void SamplingSession::wait(std::chrono::milliseconds timeout) const {
  epoll_event events[16];
  ::epoll_wait(epoll_.get(), events, 16, static_cast<int>(timeout.count()));
}

}  // namespace sonde::capture
