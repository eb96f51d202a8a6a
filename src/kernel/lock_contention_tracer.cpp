#include "kernel/lock_contention_tracer.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>

#include "kernel/bpf/task_marks.h"
#include "kernel/bpf_programs.hpp"
#include "lock_contention.skel.h"

namespace sonde::kernel {

void LockContentionTracer::Deleter::operator()(lock_contention* skeleton) const {
  lock_contention__destroy(skeleton);
}

LockContentionTracer::LockContentionTracer(LockContentionTracer&&) noexcept = default;
LockContentionTracer& LockContentionTracer::operator=(LockContentionTracer&&) noexcept = default;
LockContentionTracer::~LockContentionTracer() = default;

Result<LockContentionTracer> LockContentionTracer::open(const LockTracerOptions& options) {
  quiet_libbpf();
  LockContentionTracer tracer;
  tracer.skeleton_.reset(lock_contention__open());
  if (!tracer.skeleton_) return failf("cannot open the BPF lock contention tracer: {}", errno_text(errno));
  auto* skeleton = tracer.skeleton_.get();
  skeleton->rodata->filter_tasks = options.system_wide ? 0 : 1;
  skeleton->rodata->by_task = options.by_task ? 1 : 0;
  skeleton->rodata->stack_skip = static_cast<uint32_t>(std::clamp(options.stack_skip, 0, 255));
  if (!options.cpus.empty()) {
    skeleton->rodata->filter_cpus = 1;
    for (int cpu : options.cpus) {
      if (cpu < 0 || cpu >= 1024) return failf("CPU {} is beyond the 1024 the tracer can select", cpu);
      skeleton->rodata->cpus[cpu / 8] |= static_cast<uint8_t>(1u << (cpu % 8));
    }
  }
  bpf_map__set_max_entries(skeleton->maps.stacks, options.map_entries);
  bpf_map__set_max_entries(skeleton->maps.totals, options.map_entries);
  bpf_program__set_autoload(skeleton->progs.follow_fork, !options.system_wide);
  bpf_program__set_autoload(skeleton->progs.follow_exec, !options.system_wide);
  if (int err = lock_contention__load(skeleton); err != 0)
    return failf(
        "the kernel refused the BPF lock contention tracer: {} (it needs lock:contention_begin and BTF)",
        errno_text(-err));
  return tracer;
}

Result<void> LockContentionTracer::follow(pid_t tid, bool wait_for_exec) {
  uint8_t mark = wait_for_exec ? TASK_PENDING_EXEC : TASK_FOLLOWED;
  return mark_task(skeleton_->maps.task_marks, tid, &mark, sizeof mark);
}

Result<void> LockContentionTracer::start() {
  auto* skeleton = skeleton_.get();
  return attach_programs({skeleton->progs.follow_fork, skeleton->progs.follow_exec,
                          skeleton->progs.contention_begin, skeleton->progs.contention_end},
                         {&skeleton->links.follow_fork, &skeleton->links.follow_exec,
                          &skeleton->links.contention_begin, &skeleton->links.contention_end});
}

void LockContentionTracer::stop() {
  auto* skeleton = skeleton_.get();
  if (!skeleton) return;  // moved from
  detach_programs({&skeleton->links.contention_begin, &skeleton->links.contention_end,
                   &skeleton->links.follow_fork, &skeleton->links.follow_exec});
}

Result<std::vector<LockWaitTotal>> LockContentionTracer::totals() const {
  std::vector<LockWaitTotal> result;
  int fd = bpf_map__fd(skeleton_->maps.totals);
  lock_contention_key key{}, next{};
  const void* previous = nullptr;
  while (bpf_map_get_next_key(fd, previous, &next) == 0) {
    LockWaitTotal total;
    total.id = next.id;
    if (bpf_map_lookup_elem(fd, &next, &total.total) == 0) result.push_back(total);
    key = next;
    previous = &key;
  }
  if (errno != ENOENT) return failf("cannot read the lock contention totals: {}", errno_text(errno));
  return result;
}

std::vector<uint64_t> LockContentionTracer::stack(uint64_t id) const {
  uint64_t frames[SONDE_LOCK_STACK_DEPTH] = {};
  auto key = static_cast<uint32_t>(id);
  if (bpf_map__lookup_elem(skeleton_->maps.stacks, &key, sizeof key, frames, sizeof frames, 0) != 0)
    return {};
  size_t depth = 0;
  while (depth < SONDE_LOCK_STACK_DEPTH && frames[depth] != 0) ++depth;
  return {frames, frames + depth};
}

uint64_t LockContentionTracer::lost() const {
  if (!skeleton_ || !skeleton_->bss) return 0;
  uint64_t skipped = 0;
  for (bpf_program* program : {skeleton_->progs.contention_begin, skeleton_->progs.contention_end}) {
    bpf_prog_info info{};
    uint32_t length = sizeof info;
    if (bpf_obj_get_info_by_fd(bpf_program__fd(program), &info, &length) == 0)
      skipped += info.recursion_misses;
  }
  const auto* bss = skeleton_->bss;
  return bss->lost_waits + bss->lost_stacks + bss->lost_totals + bss->follow_failures + skipped;
}

}  // namespace sonde::kernel
