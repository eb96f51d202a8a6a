#include "kernel/syscall_counter.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>

#include "kernel/bpf/task_marks.h"
#include "kernel/bpf_programs.hpp"
#include "syscall_counter.skel.h"

namespace sonde::kernel {

namespace {

struct SyscallCounts {
  uint64_t count[kMaxSyscalls];
};

}  // namespace

void SyscallCounter::Deleter::operator()(syscall_counter* skeleton) const {
  syscall_counter__destroy(skeleton);
}

SyscallCounter::SyscallCounter(SyscallCounter&&) noexcept = default;
SyscallCounter& SyscallCounter::operator=(SyscallCounter&&) noexcept = default;
SyscallCounter::~SyscallCounter() = default;

Result<SyscallCounter> SyscallCounter::open(const SyscallCounterOptions& options) {
  quiet_libbpf();
  SyscallCounter counter;
  counter.options_ = options;
  counter.possible_cpus_ = libbpf_num_possible_cpus();
  if (counter.possible_cpus_ <= 0) return fail("cannot tell the number of possible CPUs");
  counter.skeleton_.reset(syscall_counter__open());
  if (!counter.skeleton_) return failf("cannot open the BPF syscall counter: {}", errno_text(errno));
  auto* skeleton = counter.skeleton_.get();
  skeleton->rodata->filter_tasks = options.system_wide ? 0 : 1;
  bpf_program__set_autoload(skeleton->progs.count_sys_enter, options.count_enter);
  bpf_program__set_autoload(skeleton->progs.count_sys_exit, options.count_exit);
  bpf_program__set_autoload(skeleton->progs.follow_fork, !options.system_wide);
  bpf_program__set_autoload(skeleton->progs.follow_exec, !options.system_wide);
  skeleton->rodata->follow_children = options.follow_children ? 1 : 0;
  if (int err = syscall_counter__load(skeleton); err != 0)
    return failf("the kernel refused the BPF syscall counter: {}", errno_text(-err));
  return counter;
}

Result<void> SyscallCounter::follow(pid_t tid, bool wait_for_exec) {
  uint8_t mark = wait_for_exec ? TASK_PENDING_EXEC : TASK_FOLLOWED;
  return mark_task(skeleton_->maps.task_marks, tid, &mark, sizeof mark);
}

Result<void> SyscallCounter::start() {
  auto* skeleton = skeleton_.get();
  return attach_programs({skeleton->progs.follow_fork, skeleton->progs.follow_exec,
                          skeleton->progs.count_sys_enter, skeleton->progs.count_sys_exit},
                         {&skeleton->links.follow_fork, &skeleton->links.follow_exec,
                          &skeleton->links.count_sys_enter, &skeleton->links.count_sys_exit});
}

void SyscallCounter::stop() {
  auto* skeleton = skeleton_.get();
  if (!skeleton) return;  // moved from
  detach_programs({&skeleton->links.count_sys_enter, &skeleton->links.count_sys_exit,
                   &skeleton->links.follow_fork, &skeleton->links.follow_exec});
}

uint64_t SyscallCounter::follow_failures() const {
  return skeleton_ && skeleton_->bss ? skeleton_->bss->follow_failures : 0;
}

Result<std::vector<std::vector<uint64_t>>> SyscallCounter::read(SyscallDirection direction) const {
  uint32_t key = static_cast<uint32_t>(direction);
  std::vector<SyscallCounts> per_cpu(static_cast<size_t>(possible_cpus_));
  if (bpf_map__lookup_elem(skeleton_->maps.counts, &key, sizeof key, per_cpu.data(),
                           per_cpu.size() * sizeof(SyscallCounts), 0) != 0)
    return failf("cannot read the BPF syscall counts: {}", errno_text(errno));
  std::vector<std::vector<uint64_t>> result;
  result.reserve(per_cpu.size());
  for (const auto& counts : per_cpu) result.emplace_back(std::begin(counts.count), std::end(counts.count));
  return result;
}

}  // namespace sonde::kernel
