#include "capture/counter_session.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <ctime>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "capture/open_event.hpp"
#include "capture/tasks.hpp"
#include "kernel/cgroup.hpp"
#include "kernel/syscall_table.hpp"

namespace sonde::capture {

namespace {

int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The errnos perf stat reports as "<not supported>" rather than as a failure.
bool means_not_supported(int err) {
  return err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == ENXIO || err == EINVAL ||
         err == ENOSYS;
}

std::vector<Slot> slots_for(const CountingTarget& target) {
  std::vector<Slot> slots;
  switch (target.kind) {
    case CountingTarget::Kind::system:
      for (int cpu : target.cpus) slots.push_back({cpu, -1, {}});
      break;
    case CountingTarget::Kind::workload:
    case CountingTarget::Kind::processes:
    case CountingTarget::Kind::threads:
      for (pid_t id : target.ids) {
        std::string comm;
        if (target.per_thread) {
          auto text = read_file(fmt::format("/proc/{}/comm", id));
          if (text) comm = std::string(trim(*text));
        }
        slots.push_back({-1, id, comm});
      }
      break;
  }
  return slots;
}

bool is_aggregatable_syscall(const events::EventSpec& spec) {
  return spec.is_tracepoint() && spec.tracepoint_system == "syscalls" && spec.filter.empty() &&
         !spec.in_group && kernel::syscall_number_of_tracepoint(spec.tracepoint_name).has_value();
}

}  // namespace

CounterSession::~CounterSession() {
  if (syscall_counter_) syscall_counter_->stop();
}

Result<CounterSession> CounterSession::open(const std::vector<events::EventSpec>& events,
                                            const CountingTarget& target, const CountingOptions& options,
                                            Diagnostics& diagnostics) {
  CounterSession session;
  session.verbose_ = options.verbose;
  session.system_wide_ = target.kind == CountingTarget::Kind::system;
  CountingTarget expanded = target;
  if (target.kind == CountingTarget::Kind::processes) {
    // perf opens one counter per thread of each process; --per-thread keeps them apart.
    expanded.ids.clear();
    for (pid_t pid : target.ids) {
      auto tids = process_threads(pid);
      if (!tids) return tl::unexpected(tids.error());
      expanded.ids.insert(expanded.ids.end(), tids->begin(), tids->end());
    }
  } else if (target.kind == CountingTarget::Kind::threads) {
    for (pid_t tid : target.ids)
      if (!path_exists(fmt::format("/proc/{}", tid)))
        return failf("no thread with id {}; check the tid (ls /proc/*/task)", tid);
  }
  session.slots_ = slots_for(expanded);
  session.events_.resize(events.size());

  std::vector<size_t> syscall_candidates;
  for (size_t i = 0; i < events.size(); ++i)
    if (is_aggregatable_syscall(events[i]) && events[i].cgroup.empty()) syscall_candidates.push_back(i);
  bool aggregate = options.syscall_aggregation_threshold > 0 &&
                   syscall_candidates.size() >= options.syscall_aggregation_threshold && !target.per_thread;
  if (aggregate) {
    kernel::SyscallCounterOptions counter_options;
    counter_options.system_wide = session.system_wide_;
    counter_options.count_enter = counter_options.count_exit = false;
    counter_options.follow_children = target.inherit;
    for (size_t i : syscall_candidates) {
      bool exit_side = events[i].tracepoint_name.starts_with("sys_exit_");
      (exit_side ? counter_options.count_exit : counter_options.count_enter) = true;
    }
    auto counter = kernel::SyscallCounter::open(counter_options);
    if (counter) {
      session.syscall_counter_ = std::move(*counter);
      for (size_t i : syscall_candidates) {
        auto& entry = session.events_[i];
        entry.via_syscall_counter = true;
        entry.exit_side = events[i].tracepoint_name.starts_with("sys_exit_");
        entry.syscall_number = *kernel::syscall_number_of_tracepoint(events[i].tracepoint_name);
      }
      if (!session.system_wide_) {
        // Every thread of a -p process, each -t thread, or the held workload (from its exec).
        bool wait_for_exec = target.kind == CountingTarget::Kind::workload;
        for (pid_t tid : expanded.ids)
          if (auto followed = session.syscall_counter_->follow(tid, wait_for_exec); !followed)
            return tl::unexpected(followed.error());
      }
    } else if (options.verbose) {
      diagnostics.notef("in-kernel syscall counting unavailable ({}); opening each tracepoint",
                        counter.error().message);
    }
  }

  for (size_t i = 0; i < events.size(); ++i) {
    if (session.events_[i].via_syscall_counter) continue;
    if (auto opened = session.open_perf_event(events[i], i, expanded, diagnostics); !opened)
      return tl::unexpected(opened.error());
  }

  // The in-kernel counter follows a workload from its exec, so it can start now.
  if (session.syscall_counter_ && target.kind == CountingTarget::Kind::workload && !target.start_disabled) {
    if (auto started = session.syscall_counter_->start(); !started) return tl::unexpected(started.error());
    session.syscall_counter_started_ns_ = monotonic_ns();
  }
  return session;
}

Result<void> CounterSession::open_perf_event(const events::EventSpec& spec, size_t index,
                                             const CountingTarget& target, Diagnostics& diagnostics) {
  auto& entry = events_[index];
  bool leader = spec.group_leader == static_cast<int>(index);
  const OpenEvent* leader_event = leader ? nullptr : &events_[static_cast<size_t>(spec.group_leader)];
  // A member whose leader the kernel lacks counts alone rather than not at all.
  if (leader_event && !leader_event->supported) leader_event = nullptr;

  perf_event_attr attr = spec.attr;
  attr.size = sizeof attr;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  attr.sample_period = 0;
  attr.freq = 0;
  attr.inherit = target.inherit && target.kind != CountingTarget::Kind::system ? 1 : 0;
  attr.disabled = leader_event ? 0 : 1;
  attr.enable_on_exec =
      target.kind == CountingTarget::Kind::workload && !leader_event && !target.start_disabled ? 1 : 0;

  // -G: the event counts only tasks of the cgroup, per CPU (perf's PERF_FLAG_PID_CGROUP).
  int cgroup_fd = -1;
  if (!spec.cgroup.empty()) {
    if (!system_wide_) return failf("-G {}: cgroups are counted system-wide; add -a or -C", spec.cgroup);
    auto opened = kernel::open_perf_cgroup(spec.cgroup);
    if (!opened) return tl::unexpected(opened.error());
    cgroup_fd = opened->get();
    cgroups_.push_back(std::move(*opened));
  }
  for (size_t s = 0; s < slots_.size(); ++s) {
    int group_fd = leader_event ? leader_event->fds[s].fd() : -1;
    auto fd = cgroup_fd >= 0 ? open_event(attr, cgroup_fd, slots_[s].cpu, group_fd, PERF_FLAG_PID_CGROUP)
                             : open_event(attr, slots_[s].tid, slots_[s].cpu, group_fd);
    if (!fd) {
      int err = fd.error().sys_errno;
      if (means_not_supported(err)) {
        if (verbose_) diagnostics.notef("{}: not supported here: {}", spec.name, errno_text(err));
        entry.supported = false;
        entry.fds.clear();
        return {};
      }
      if (err == ESRCH) return failf("the process or thread {} is gone", slots_[s].tid);
      std::string hint = err == EMFILE ? "; raise the open file limit (ulimit -n)"
                                       : permission_hint(err, slots_[s].tid == -1);
      return failf("cannot open event '{}': {}{}", spec.name, errno_text(err), hint);
    }
    if (!spec.filter.empty()) {
      if (auto filtered = fd->set_filter(spec.filter); !filtered) return tl::unexpected(filtered.error());
    }
    entry.fds.push_back(std::move(*fd));
  }
  return {};
}

Result<void> CounterSession::enable() {
  for (auto& event : events_)
    for (auto& fd : event.fds)
      if (auto enabled = fd.enable(); !enabled) return enabled;
  if (syscall_counter_ && (syscall_counter_started_ns_ < 0 || syscall_counter_stopped_ns_ >= 0)) {
    if (auto started = syscall_counter_->start(); !started) return started;
    // Its time runs from the first start; a pause (--control disable) is not taken off.
    if (syscall_counter_started_ns_ < 0) syscall_counter_started_ns_ = monotonic_ns();
    syscall_counter_stopped_ns_ = -1;
  }
  return {};
}

void CounterSession::disable() {
  for (auto& event : events_)
    for (auto& fd : event.fds) (void)fd.disable();
  if (syscall_counter_ && syscall_counter_stopped_ns_ < 0) {
    syscall_counter_->stop();
    syscall_counter_stopped_ns_ = monotonic_ns();
  }
}

uint64_t CounterSession::syscall_counter_time_ns() const {
  if (syscall_counter_started_ns_ < 0) return 0;
  int64_t end = syscall_counter_stopped_ns_ >= 0 ? syscall_counter_stopped_ns_ : monotonic_ns();
  return static_cast<uint64_t>(end - syscall_counter_started_ns_);
}

Result<std::vector<EventCounts>> CounterSession::read() const {
  std::vector<EventCounts> counts(events_.size());
  std::vector<std::vector<uint64_t>> enter_counts, exit_counts;
  if (syscall_counter_) {
    auto enter = syscall_counter_->read(kernel::SyscallDirection::enter);
    auto exit = syscall_counter_->read(kernel::SyscallDirection::exit);
    if (!enter) return tl::unexpected(enter.error());
    if (!exit) return tl::unexpected(exit.error());
    enter_counts = std::move(*enter);
    exit_counts = std::move(*exit);
  }
  uint64_t syscall_time = syscall_counter_time_ns();
  for (size_t i = 0; i < events_.size(); ++i) {
    const auto& event = events_[i];
    auto& out = counts[i];
    out.supported = event.supported;
    if (event.via_syscall_counter) {
      const auto& per_cpu = event.exit_side ? exit_counts : enter_counts;
      // Per CPU for the system; otherwise the whole followed task tree, given to the first slot.
      for (size_t s = 0; s < slots_.size(); ++s) {
        uint64_t value = 0;
        for (size_t cpu = 0; cpu < per_cpu.size(); ++cpu) {
          bool counted = system_wide_ ? static_cast<int>(cpu) == slots_[s].cpu : s == 0;
          if (counted) value += per_cpu[cpu][static_cast<size_t>(event.syscall_number)];
        }
        out.slots.push_back({value, syscall_time, syscall_time});
      }
      continue;
    }
    for (const auto& fd : event.fds) {
      auto reading = fd.read_counter();
      if (!reading) return tl::unexpected(reading.error());
      out.slots.push_back(*reading);
    }
  }
  return counts;
}

}  // namespace sonde::capture
