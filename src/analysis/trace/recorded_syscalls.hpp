#pragma once
// System calls read back from a perf.data file (sonde trace record's, or perf trace record's):
// raw_syscalls:sys_enter and sys_exit samples paired per thread into the same events the BPF
// tracer copies out live, so `sonde trace -i` prints and summarises them the same way.
#include <functional>
#include <string>

#include "analysis/trace/syscall_stats.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "kernel/syscall_tracer.hpp"

namespace sonde::analysis {

struct RecordedSyscallsResult {
  SyscallSummary summary;  // per thread and syscall, as the live tracer's maps give it
  uint64_t lost_events = 0;
};

// Replays `path`; each completed call (or exit whose entry the file lacks, flagged continued)
// goes to `on_event` in the file's time order of exits; `on_first_sample` gets the time of the
// first syscall sample, which perf counts times from. Fails when the file has no
// raw_syscalls:sys_enter/sys_exit events with their payloads.
Result<RecordedSyscallsResult> replay_recorded_syscalls(
    const std::string& path, const std::function<void(const kernel::SyscallTraceEvent& event)>& on_event,
    const std::function<void(uint64_t time)>& on_first_sample, Diagnostics& diagnostics);

}  // namespace sonde::analysis
