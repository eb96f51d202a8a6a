#pragma once
// perf trace's line for a tracepoint named in -e beside the syscalls:
//      1.176 (         ): ls/26408 sched:sched_process_exit(comm: "ls", pid: 26408 (ls), prio: 120,
//      group_dead: 1)
// fields in format order, zero numbers left out, char arrays and dynamic strings quoted, pid
// fields with the task's comm, as perf 6.1 prints them.
#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "kernel/syscall_tracer.hpp"

struct tep_handle;

namespace sonde::output {

struct TracepointLinePrefix {
  double time_ms = 0;
  bool with_duration_column = true;  // perf keeps "(         ): " when syscalls are traced too
  bool show_tid = true;
  bool show_comm = true;
};

class TracepointText {
 public:
  TracepointText();
  ~TracepointText();
  TracepointText(const TracepointText&) = delete;
  TracepointText& operator=(const TracepointText&) = delete;

  // Learns a tracepoint's tracefs format text.
  Result<void> add_format(std::string_view system, std::string_view format);
  // Appends the event's line; `comm_of` names pids.
  void append(std::string& out, const TracepointLinePrefix& prefix, const kernel::TracepointTraceEvent& event,
              const std::function<std::string_view(pid_t)>& comm_of) const;

 private:
  tep_handle* tep_;
};

}  // namespace sonde::output
