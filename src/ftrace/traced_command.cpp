#include "ftrace/traced_command.hpp"

namespace sonde::ftrace {

Result<TracedCommand> TracedCommand::prepare(const std::vector<std::string>& argv) {
  TracedCommand command;
  if (argv.empty()) return command;
  auto prepared = capture::Workload::prepare(argv);
  if (!prepared) return tl::unexpected(prepared.error());
  command.workload_.emplace(std::move(*prepared));
  return command;
}

Result<capture::ReceivedSignal> TracedCommand::start(capture::BlockedSignals& signals) {
  if (auto pending = signals.poll(); capture::is_stop_request(pending.number)) return pending;
  if (workload_)
    if (auto started = workload_->start(); !started) return tl::unexpected(started.error());
  return capture::ReceivedSignal{};
}

bool TracedCommand::ended() { return workload_ && workload_->reap(); }

int TracedCommand::finish(const capture::ReceivedSignal& stop_signal) {
  if (!workload_) return 0;
  if (stop_signal.number != 0)
    workload_->stop(stop_signal.from_terminal);
  else
    workload_->wait();
  return workload_->exit_status();
}

}  // namespace sonde::ftrace
