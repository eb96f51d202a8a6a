#include "kernel/syscall_tracer.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>

#include "kernel/bpf/task_marks.h"
#include "kernel/bpf_programs.hpp"
#include "syscall_tracer.skel.h"

namespace sonde::kernel {

namespace {

int handle_ring_record(void* context, void* data, size_t size) {
  auto* handler = static_cast<SyscallTracer::EventHandler*>(context);
  uint32_t kind = 0;
  if (size < sizeof kind) return 0;
  std::memcpy(&kind, data, sizeof kind);
  if (kind == SONDE_TRACE_KIND_SYSCALL_DWARF) {
    if (size < offsetof(SyscallTraceEventDwarf, stack) || !handler->on_syscall_dwarf) return 0;
    // Big: handed over in place (the ring buffer's records are 8-byte aligned).
    handler->on_syscall_dwarf(*static_cast<const SyscallTraceEventDwarf*>(data), size);
    return 0;
  }
  if (kind == SONDE_TRACE_KIND_FAULT) {
    if (size < sizeof(FaultTraceEvent) || !handler->on_fault) return 0;
    FaultTraceEvent event;
    std::memcpy(&event, data, sizeof event);
    handler->on_fault(event);
    return 0;
  }
  if (kind == SONDE_TRACE_KIND_TRACEPOINT) {
    if (size < offsetof(TracepointTraceEvent, data) || !handler->on_tracepoint) return 0;
    TracepointTraceEvent event;
    std::memcpy(&event, data, std::min(size, sizeof event));
    event.size =
        static_cast<uint32_t>(std::min<size_t>(event.size, size - offsetof(TracepointTraceEvent, data)));
    handler->on_tracepoint(event);
    return 0;
  }
  // A syscall: at least the event's fixed part.
  if (size < offsetof(SyscallTraceEvent, strings)) return 0;
  SyscallTraceEvent event;
  std::memcpy(&event, data, std::min(size, sizeof event));
  handler->on_syscall(event, size);
  return 0;
}

}  // namespace

void SyscallTracer::SkeletonDeleter::operator()(syscall_tracer* skeleton) const {
  syscall_tracer__destroy(skeleton);
}
void SyscallTracer::RingDeleter::operator()(ring_buffer* ring) const { ring_buffer__free(ring); }

SyscallTracer::SyscallTracer(SyscallTracer&&) noexcept = default;
SyscallTracer& SyscallTracer::operator=(SyscallTracer&&) noexcept = default;
SyscallTracer::~SyscallTracer() {
  stop();
  // The ring buffer goes before the skeleton that owns its map.
  ring_.reset();
  skeleton_.reset();
}

Result<SyscallTracer> SyscallTracer::open(const SyscallTracerOptions& options) {
  quiet_libbpf();
  SyscallTracer tracer;
  tracer.options_ = options;
  tracer.skeleton_.reset(syscall_tracer__open());
  if (!tracer.skeleton_) return failf("cannot open the BPF syscall tracer: {}", errno_text(errno));
  auto* skeleton = tracer.skeleton_.get();
  auto* rodata = skeleton->rodata;
  rodata->filter_tasks = options.system_wide ? 0 : 1;
  rodata->follow_children = options.follow_children ? 1 : 0;
  rodata->copy_events = options.copy_events ? 1 : 0;
  rodata->keep_stats = options.keep_stats ? 1 : 0;
  rodata->keep_errnos = options.keep_errnos ? 1 : 0;
  rodata->failures_only = options.failures_only ? 1 : 0;
  rodata->user_stacks = options.user_stacks ? 1 : 0;
  rodata->dwarf_stacks = options.dwarf_stacks ? 1 : 0;
  rodata->kernel_stacks = options.kernel_stacks ? 1 : 0;
  rodata->count_child_fork_returns = options.count_child_fork_returns ? 1 : 0;
  rodata->min_duration_ns = options.min_duration_ns;
  // perf splits a call's line around an interrupting entry only when it prints every call, and
  // around a tracepoint unless it prints failures only.
  rodata->split_on_enter = options.copy_events && options.min_duration_ns == 0 && !options.failures_only;
  rodata->split_on_tracepoint = options.copy_events && !options.failures_only;
  for (size_t nr = 0; nr < SONDE_TRACE_MAX_SYSCALLS; ++nr) {
    rodata->selected[nr] = options.selected[nr] ? 1 : 0;
    rodata->string_masks[nr] = nr < options.string_masks.size() ? options.string_masks[nr] : 0;
  }
  if (!options.cpus.empty()) {
    rodata->filter_cpus = 1;
    for (int cpu : options.cpus)
      if (cpu >= 0 && cpu < SONDE_TRACE_MAX_CPUS)
        rodata->cpus[cpu / 8] |= static_cast<uint8_t>(1u << (cpu % 8));
  }
  if (options.uid) {
    rodata->filter_uid = 1;
    rodata->uid = *options.uid;
  }
  rodata->exclude_pids = options.excluded_pids.empty() ? 0 : 1;
  // The ring buffer's size is a power of two pages.
  size_t ring_bytes = 4096;
  while (ring_bytes < options.ring_bytes) ring_bytes <<= 1;
  rodata->wakeup_bytes = ring_bytes / 8;
  if (bpf_map__set_max_entries(skeleton->maps.events, static_cast<uint32_t>(ring_bytes)) != 0)
    return failf("cannot size the BPF ring buffer: {}", errno_text(errno));
  bpf_program__set_autoload(skeleton->progs.follow_fork, !options.system_wide);
  bpf_program__set_autoload(skeleton->progs.trace_tracepoint, !options.tracepoints.empty());
  bpf_program__set_autoload(skeleton->progs.trace_fault, options.major_faults || options.minor_faults);
  bpf_program__set_autoload(skeleton->progs.trace_sys_enter, options.selected.any());
  bpf_program__set_autoload(skeleton->progs.trace_sys_exit, options.selected.any());
  if (int err = syscall_tracer__load(skeleton); err != 0)
    return failf("the kernel refused the BPF syscall tracer: {}", errno_text(-err));
  for (const auto& tracepoint : options.tracepoints) {
    uint32_t key = tracepoint.id, size = tracepoint.fixed_size;
    if (bpf_map__update_elem(skeleton->maps.tracepoint_sizes, &key, sizeof key, &size, sizeof size,
                             BPF_ANY) != 0)
      return failf("cannot set up tracepoint {}:{}: {}", tracepoint.system, tracepoint.name,
                   errno_text(errno));
  }
  for (pid_t pid : options.excluded_pids) {
    uint32_t key = static_cast<uint32_t>(pid);
    uint8_t one = 1;
    if (bpf_map__update_elem(skeleton->maps.excluded_pids, &key, sizeof key, &one, sizeof one, BPF_ANY) != 0)
      return failf("cannot exclude pid {}: {}", pid, errno_text(errno));
  }
  return tracer;
}

Result<void> SyscallTracer::follow(pid_t tid, bool wait_for_exec) {
  SyscallTraceEvent state{};
  state.mark = wait_for_exec ? TASK_PENDING_EXEC : TASK_FOLLOWED;
  return mark_task(skeleton_->maps.tasks, tid, &state, sizeof state);
}

Result<void> SyscallTracer::start(EventHandler on_event, bool followers_only) {
  auto* skeleton = skeleton_.get();
  if (options_.copy_events) {
    handler_ = std::make_unique<EventHandler>(std::move(on_event));
    ring_.reset(
        ring_buffer__new(bpf_map__fd(skeleton->maps.events), handle_ring_record, handler_.get(), nullptr));
    if (!ring_) return failf("cannot read the BPF ring buffer: {}", errno_text(errno));
  }
  // The task followers go first so that no fork is missed.
  if (auto attached = attach_programs({skeleton->progs.follow_fork, skeleton->progs.follow_exec},
                                      {&skeleton->links.follow_fork, &skeleton->links.follow_exec});
      !attached)
    return attached;
  if (followers_only) return {};
  return start_tracing();
}

Result<void> SyscallTracer::start_tracing() {
  auto* skeleton = skeleton_.get();
  for (const auto& tracepoint : options_.tracepoints) {
    if (tracepoint_links_.size() == options_.tracepoints.size()) break;
    LIBBPF_OPTS(bpf_tracepoint_opts, attach_options, .bpf_cookie = tracepoint.id);
    struct bpf_link* link =
        bpf_program__attach_tracepoint_opts(skeleton->progs.trace_tracepoint, tracepoint.system.c_str(),
                                            tracepoint.name.c_str(), &attach_options);
    if (!link)
      return failf("cannot attach to tracepoint {}:{}: {}", tracepoint.system, tracepoint.name,
                   errno_text(errno));
    tracepoint_links_.push_back(link);
  }
  // Page faults: the software event on every CPU, the program filtering the traced tasks.
  for (bool major : {true, false}) {
    if (!(major ? options_.major_faults : options_.minor_faults)) continue;
    for (int cpu : options_.online_cpus) {
      perf_event_attr attr{};
      attr.size = sizeof attr;
      attr.type = PERF_TYPE_SOFTWARE;
      attr.config = major ? PERF_COUNT_SW_PAGE_FAULTS_MAJ : PERF_COUNT_SW_PAGE_FAULTS_MIN;
      attr.sample_period = 1;
      int fd = static_cast<int>(::syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
      if (fd < 0) return failf("cannot open the page-fault event on CPU {}: {}", cpu, errno_text(errno));
      LIBBPF_OPTS(bpf_perf_event_opts, attach_options, .bpf_cookie = major ? 1u : 2u);
      struct bpf_link* link =
          bpf_program__attach_perf_event_opts(skeleton->progs.trace_fault, fd, &attach_options);
      if (!link) {
        int err = errno;
        ::close(fd);
        return failf("cannot attach to the page-fault event on CPU {}: {}", cpu, errno_text(err));
      }
      fault_links_.push_back(link);  // the link closes the event
    }
  }
  return attach_programs({skeleton->progs.trace_sys_enter, skeleton->progs.trace_sys_exit},
                         {&skeleton->links.trace_sys_enter, &skeleton->links.trace_sys_exit});
}

int SyscallTracer::ring_epoll_fd() const { return ring_ ? ring_buffer__epoll_fd(ring_.get()) : -1; }

void SyscallTracer::stop() {
  auto* skeleton = skeleton_.get();
  if (!skeleton) return;  // moved from
  for (struct bpf_link* link : tracepoint_links_) bpf_link__destroy(link);
  tracepoint_links_.clear();
  for (struct bpf_link* link : fault_links_) bpf_link__destroy(link);
  fault_links_.clear();
  detach_programs({&skeleton->links.trace_sys_enter, &skeleton->links.trace_sys_exit,
                   &skeleton->links.follow_fork, &skeleton->links.follow_exec});
}

Result<int> SyscallTracer::poll(int timeout_ms) {
  if (!ring_) return 0;
  int handled = ring_buffer__poll(ring_.get(), timeout_ms);
  if (handled == -EINTR) return 0;
  if (handled < 0) return failf("cannot read the BPF ring buffer: {}", errno_text(-handled));
  return handled;
}

Result<int> SyscallTracer::drain() {
  if (!ring_) return 0;
  int handled = ring_buffer__consume(ring_.get());
  if (handled < 0) return failf("cannot read the BPF ring buffer: {}", errno_text(-handled));
  return handled;
}

uint64_t SyscallTracer::lost_events() const {
  return skeleton_ && skeleton_->bss ? skeleton_->bss->lost_events : 0;
}
uint64_t SyscallTracer::first_event_ns() const {
  return skeleton_ && skeleton_->bss ? __atomic_load_n(&skeleton_->bss->first_ns, __ATOMIC_RELAXED) : 0;
}
uint64_t SyscallTracer::lost_stats() const {
  return skeleton_ && skeleton_->bss ? skeleton_->bss->lost_stats : 0;
}
uint64_t SyscallTracer::follow_failures() const {
  return skeleton_ && skeleton_->bss ? skeleton_->bss->follow_failures : 0;
}

namespace {

// Every key and value of a hash map, in batches where the kernel has them.
template <typename Key, typename Value, typename Row>
Result<std::vector<Row>> read_hash_map(int fd, const char* what, Row (*make_row)(const Key&, const Value&)) {
  std::vector<Row> rows;
  Key key{};
  Key next{};
  Key* previous = nullptr;
  while (bpf_map_get_next_key(fd, previous, &next) == 0) {
    Value value{};
    if (bpf_map_lookup_elem(fd, &next, &value) == 0) rows.push_back(make_row(next, value));
    key = next;
    previous = &key;
  }
  if (errno != ENOENT) return failf("cannot read the BPF {}: {}", what, errno_text(errno));
  return rows;
}

}  // namespace

Result<std::vector<SyscallStatsRow>> SyscallTracer::read_stats() const {
  return read_hash_map<syscall_stats_key, syscall_stats_value, SyscallStatsRow>(
      bpf_map__fd(skeleton_->maps.stats), "syscall statistics",
      [](const syscall_stats_key& key, const syscall_stats_value& value) {
        return SyscallStatsRow{static_cast<pid_t>(key.tid), key.nr, value};
      });
}

Result<std::vector<SyscallErrnoRow>> SyscallTracer::read_errnos() const {
  return read_hash_map<syscall_errno_key, uint64_t, SyscallErrnoRow>(
      bpf_map__fd(skeleton_->maps.errnos), "errno counts",
      [](const syscall_errno_key& key, const uint64_t& count) {
        return SyscallErrnoRow{static_cast<pid_t>(key.tid), key.nr, key.err, count};
      });
}

Result<std::vector<SyscallTracer::FaultCounts>> SyscallTracer::read_faults() const {
  return read_hash_map<uint32_t, fault_counts, FaultCounts>(
      bpf_map__fd(skeleton_->maps.faults), "page-fault counts",
      [](const uint32_t& tid, const fault_counts& counts) {
        return FaultCounts{static_cast<pid_t>(tid), counts.major, counts.minor};
      });
}

Result<std::vector<std::pair<pid_t, std::string>>> SyscallTracer::read_comms() const {
  using Comm = std::array<char, 16>;
  return read_hash_map<uint32_t, Comm, std::pair<pid_t, std::string>>(
      bpf_map__fd(skeleton_->maps.comms), "thread names", [](const uint32_t& tid, const Comm& comm) {
        return std::pair<pid_t, std::string>{static_cast<pid_t>(tid),
                                             std::string(comm.data(), strnlen(comm.data(), 16))};
      });
}

}  // namespace sonde::kernel
