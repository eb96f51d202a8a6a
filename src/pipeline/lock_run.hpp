#pragma once
// sonde lock: the event list `lock record` records, as perf 6.1's lock record builds it, and the
// contention, report and info runs (analysis/lock's pass, output/lock's text on stdout).
#include <sys/types.h>

#include <string>
#include <vector>

#include "analysis/lock/lock_contention.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "output/lock/lock_text.hpp"

namespace sonde::pipeline {

// perf's `lock record` arguments before the user's: raw samples of every event, 1024 pages,
// tasks synthesized; lockdep's four lock events where the kernel has them, else
// contention_begin/end with frame-pointer callchains 8 deep. Fails when the kernel has neither.
Result<std::vector<std::string>> lock_record_arguments();

enum class LockView { contention, report, info_threads, info_map };

struct LockRunOptions {
  LockView view = LockView::contention;
  analysis::LockOptions analysis;
  output::LockTextOptions text;
  bool combine = false;  // report -c
};

Result<void> run_lock(const LockRunOptions& options, Diagnostics& diagnostics);

// contention -b: the waits measured live by the kernel's BPF tracer, for the command (and what it
// forks), the -p processes and --tid threads, or the whole system (-a, or none of those) until
// Ctrl-C; the same table printed when it ends.
struct LockBpfOptions {
  std::vector<std::string> command;
  std::vector<pid_t> pids, tids;
  bool system_wide = false;
  std::vector<int> cpus;
  uint32_t map_entries = 10240;
};

// Returns the command's exit status (0 without one).
Result<int> run_lock_bpf(const LockRunOptions& options, const LockBpfOptions& bpf, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
