#pragma once
// In-kernel system call counting by number (BPF on raw_syscalls), following a set of tasks and
// their descendants, or the whole system. Thin RAII over the BPF skeleton.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "base/error.hpp"

struct syscall_counter;  // the generated BPF skeleton

namespace sonde::kernel {

constexpr int kMaxSyscalls = 512;

enum class SyscallDirection { enter = 0, exit = 1 };

struct SyscallCounterOptions {
  bool system_wide = false;  // -a: count every task
  bool count_enter = true;
  bool count_exit = false;
  bool follow_children = true;  // false for -i/--no-inherit
};

class SyscallCounter {
 public:
  static Result<SyscallCounter> open(const SyscallCounterOptions& options);
  SyscallCounter(SyscallCounter&&) noexcept;
  SyscallCounter& operator=(SyscallCounter&&) noexcept;
  ~SyscallCounter();

  // Follows one task, a process or a thread (and what it forks from now on). A task added with
  // wait_for_exec counts from its next exec on, as a perf counter opened with enable_on_exec does.
  Result<void> follow(pid_t tid, bool wait_for_exec);
  // Attaches the programs: counting starts.
  Result<void> start();
  // Detaches: counts freeze.
  void stop();
  // How many new tasks could not be followed (out of memory); their calls are missing.
  uint64_t follow_failures() const;
  // Per-CPU counts indexed [cpu][syscall number]; cpu indexes are the possible CPUs.
  Result<std::vector<std::vector<uint64_t>>> read(SyscallDirection direction) const;

 private:
  SyscallCounter() = default;
  struct Deleter {
    void operator()(syscall_counter* skeleton) const;
  };
  std::unique_ptr<syscall_counter, Deleter> skeleton_;
  SyscallCounterOptions options_;
  int possible_cpus_ = 0;
};

}  // namespace sonde::kernel
