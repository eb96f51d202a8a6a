#include "kernel/off_cpu_profiler.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>

#include "kernel/bpf/task_marks.h"
#include "kernel/bpf_programs.hpp"
#include "off_cpu.skel.h"

namespace sonde::kernel {

namespace {

constexpr size_t kMaxCpus = 1024;

// Mirrors struct task_block in off_cpu.bpf.c, for marking a task from user space.
struct TaskBlock {
  uint64_t start_ns = 0;
  int32_t kernel_stack = -1;
  int32_t user_stack = -1;
  uint32_t state = 0;
  uint8_t mark = 0;
  uint8_t reserved[3] = {};
  uint32_t waker_tid = 0;
  uint32_t waker_pid = 0;
  int32_t waker_kernel_stack = -1;
  int32_t waker_user_stack = -1;
};

}  // namespace

void OffCpuProfiler::Deleter::operator()(off_cpu* skeleton) const { off_cpu__destroy(skeleton); }

OffCpuProfiler::OffCpuProfiler(OffCpuProfiler&&) noexcept = default;
OffCpuProfiler& OffCpuProfiler::operator=(OffCpuProfiler&&) noexcept = default;
OffCpuProfiler::~OffCpuProfiler() = default;

Result<OffCpuProfiler> OffCpuProfiler::open(const OffCpuOptions& options) {
  quiet_libbpf();
  OffCpuProfiler profiler;
  profiler.skeleton_.reset(off_cpu__open());
  if (!profiler.skeleton_) return failf("cannot open the BPF off-CPU profiler: {}", errno_text(errno));
  auto* skeleton = profiler.skeleton_.get();
  skeleton->rodata->filter_tasks = options.system_wide ? 0 : 1;
  skeleton->rodata->follow_children = options.follow_children ? 1 : 0;
  skeleton->rodata->direct_threshold_ns = options.direct_threshold_ns;
  bpf_program__set_autoload(skeleton->progs.off_cpu_waking, options.wakers);
  if (!options.cpus.empty()) {
    skeleton->rodata->filter_cpus = 1;
    for (int cpu : options.cpus)
      if (cpu >= 0 && static_cast<size_t>(cpu) < kMaxCpus)
        skeleton->rodata->cpus[cpu / 8] |= static_cast<uint8_t>(1u << (cpu % 8));
  }
  int possible = libbpf_num_possible_cpus();
  if (possible <= 0) return fail("cannot tell the number of possible CPUs");
  if (bpf_map__set_max_entries(skeleton->maps.samples, static_cast<uint32_t>(possible)) != 0)
    return failf("cannot size the off-CPU sample map: {}", errno_text(errno));
  bpf_program__set_autoload(skeleton->progs.off_cpu_fork, !options.system_wide);
  bpf_program__set_autoload(skeleton->progs.off_cpu_exec, !options.system_wide);
  if (int err = off_cpu__load(skeleton); err != 0)
    return failf("the kernel refused the BPF off-CPU profiler: {}", errno_text(-err));
  return profiler;
}

Result<void> OffCpuProfiler::connect(const std::vector<std::pair<int, int>>& cpu_fds) {
  for (auto [cpu, fd] : cpu_fds) {
    uint32_t key = static_cast<uint32_t>(cpu);
    uint32_t value = static_cast<uint32_t>(fd);
    if (bpf_map__update_elem(skeleton_->maps.samples, &key, sizeof key, &value, sizeof value, BPF_ANY) != 0)
      return failf("cannot connect the offcpu-time event of CPU {}: {}", cpu, errno_text(errno));
  }
  return {};
}

Result<void> OffCpuProfiler::follow(pid_t tid, bool wait_for_exec) {
  TaskBlock block;
  block.mark = wait_for_exec ? TASK_PENDING_EXEC : TASK_FOLLOWED;
  return mark_task(skeleton_->maps.tasks, tid, &block, sizeof block);
}

Result<void> OffCpuProfiler::start() {
  auto* skeleton = skeleton_.get();
  if (auto attached = attach_programs({skeleton->progs.off_cpu_fork, skeleton->progs.off_cpu_exec,
                                       skeleton->progs.off_cpu_waking, skeleton->progs.off_cpu_switch},
                                      {&skeleton->links.off_cpu_fork, &skeleton->links.off_cpu_exec,
                                       &skeleton->links.off_cpu_waking, &skeleton->links.off_cpu_switch});
      !attached)
    return attached;
  skeleton->bss->enabled = 1;
  return {};
}

void OffCpuProfiler::stop() {
  auto* skeleton = skeleton_.get();
  if (!skeleton) return;  // moved from
  skeleton->bss->enabled = 0;
  detach_programs({&skeleton->links.off_cpu_switch, &skeleton->links.off_cpu_waking,
                   &skeleton->links.off_cpu_fork, &skeleton->links.off_cpu_exec});
}

std::vector<uint64_t> OffCpuProfiler::stack(int32_t id) const {
  if (id < 0) return {};
  uint64_t frames[SONDE_OFF_CPU_STACK_DEPTH] = {};
  uint32_t key = static_cast<uint32_t>(id);
  if (bpf_map__lookup_elem(skeleton_->maps.stacks, &key, sizeof key, frames, sizeof frames, 0) != 0)
    return {};
  size_t depth = 0;
  while (depth < SONDE_OFF_CPU_STACK_DEPTH && frames[depth] != 0) ++depth;
  return {frames, frames + depth};
}

Result<std::vector<OffCpuTotal>> OffCpuProfiler::totals() const {
  std::vector<OffCpuTotal> result;
  int fd = bpf_map__fd(skeleton_->maps.totals);
  OffCpuKey key{}, next{};
  const void* previous = nullptr;
  while (bpf_map_get_next_key(fd, previous, &next) == 0) {
    OffCpuTotal total{next, 0};
    if (bpf_map_lookup_elem(fd, &next, &total.blocked_ns) == 0) result.push_back(total);
    key = next;
    previous = &key;
  }
  if (errno != ENOENT) return failf("cannot read the off-CPU totals: {}", errno_text(errno));
  return result;
}

uint64_t OffCpuProfiler::lost() const {
  if (!skeleton_ || !skeleton_->bss) return 0;
  // The kernel skips a tracing program that would run while it already runs on that CPU.
  bpf_prog_info info{};
  uint32_t length = sizeof info;
  uint64_t skipped = 0;
  if (bpf_obj_get_info_by_fd(bpf_program__fd(skeleton_->progs.off_cpu_switch), &info, &length) == 0)
    skipped = info.recursion_misses;
  return skeleton_->bss->lost_totals + skeleton_->bss->lost_samples + skeleton_->bss->missed_blocks + skipped;
}

}  // namespace sonde::kernel
