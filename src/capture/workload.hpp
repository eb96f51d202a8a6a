#pragma once
// The command being measured: forked at once, held before exec until counters are open, then
// released, so that counting (enable_on_exec) starts exactly at its exec, as with perf.
#include <sys/resource.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde::capture {

class Workload {
 public:
  // Forks a child that waits for start(). An empty argv is an error. With stdout_to_stderr the
  // child writes its output to stderr, as perf arranges when its own stdout carries perf.data.
  static Result<Workload> prepare(const std::vector<std::string>& argv, bool stdout_to_stderr = false);
  Workload(Workload&& other) noexcept;
  Workload& operator=(Workload&&) = delete;
  ~Workload();

  pid_t pid() const { return pid_; }
  // Lets the child exec. Fails (exit code 127, as a shell's) when the command could not be run.
  Result<void> start();
  // Waits for the child to end (retrying on EINTR); the raw wait status.
  int wait();
  // Ends the workload for a stop request and waits for it: when the terminal already signalled
  // it, it gets a moment to finish; then SIGTERM (as perf sends), then SIGKILL, so a workload
  // that ignores signals cannot hang sonde.
  void stop(bool signalled_by_terminal);
  // Non-blocking: true once the child has ended (its status is then in exit_status()).
  bool reap();
  bool ended() const { return ended_; }
  int wait_status() const { return status_; }
  // The child's CPU times, from wait4(2), once it has ended.
  const rusage& usage() const { return usage_; }
  // The status a shell would report: exit code, or 128 + signal.
  int exit_status() const;

 private:
  Workload() = default;
  pid_t pid_ = -1;
  int go_fd_ = -1;     // written by start() to release the child
  int error_fd_ = -1;  // the child writes errno here when exec fails; closed on exec
  std::string command_;
  bool ended_ = false;
  int status_ = 0;
  rusage usage_{};
};

}  // namespace sonde::capture
