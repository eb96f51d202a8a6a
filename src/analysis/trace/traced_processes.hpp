#pragma once
// What a syscall trace learns about the processes it watches, for printing their calls: the
// path behind each open file descriptor (from the opens, dups and closes it saw, else from
// /proc while the process lives) and each thread's comm.
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace sonde::analysis {

class TracedProcesses {
 public:
  // `live`: the processes run on this machine now, so /proc may fill gaps (not for a recording).
  explicit TracedProcesses(bool live) : live_(live) {}
  // The path of a process's fd, or "" when unknown.
  std::string_view fd_path(pid_t pid, int fd);
  // The thread's comm, or "" when neither the trace nor /proc knows it.
  std::string_view comm(pid_t tid);
  void set_comm(pid_t tid, std::string_view comm);
  // A new task starts with its parent's comm, as perf's fork record gives it; kept unless the
  // task has been named already.
  void inherit_comm(pid_t child, std::string_view parent_comm);

  // Learns from one completed call: opens (the path read at entry), dups, closes, execs.
  void apply(pid_t pid, std::string_view syscall, const std::array<uint64_t, 6>& args,
             std::optional<std::string_view> path_argument, int64_t ret);

 private:
  struct Process {
    std::unordered_map<int, std::string> fds;
  };
  std::unordered_map<pid_t, Process> processes_;
  std::unordered_map<pid_t, std::string> comms_;
  bool live_;
};

}  // namespace sonde::analysis
