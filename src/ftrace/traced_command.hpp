#pragma once
// The command a trace runs, if one was given: forked and held before exec while tracing is set
// up, released once it is on, stopped or waited for at the end.
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "capture/signals.hpp"
#include "capture/workload.hpp"

namespace sonde::ftrace {

class TracedCommand {
 public:
  // An empty `argv` means no command: the trace lasts until a stop signal.
  static Result<TracedCommand> prepare(const std::vector<std::string>& argv);
  // Releases the command, unless a stop signal already came (then returns it).
  Result<capture::ReceivedSignal> start(capture::BlockedSignals& signals);
  // True once the command has ended (never without a command).
  bool ended();
  // Stops the command after a stop signal, or waits for it; its exit status as a shell reports
  // it (0 without a command).
  int finish(const capture::ReceivedSignal& stop_signal);

 private:
  std::optional<capture::Workload> workload_;
};

}  // namespace sonde::ftrace
