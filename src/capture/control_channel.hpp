#pragma once
// perf's --control: commands read from a descriptor or a FIFO while a run measures ("enable",
// "disable", "snapshot", "stop", "ping"), each answered with "ack\n" on the ack descriptor when
// one is given, as perf answers (with its trailing NUL, which scripts reading lines ignore).
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "base/unique_fd.hpp"

namespace sonde::capture {

enum class ControlCommand { enable, disable, snapshot, stop, ping };

class ControlChannel {
 public:
  // "fifo:CTL[,ACK]" or "fd:CTL[,ACK]".
  static Result<ControlChannel> open(std::string_view spec);
  ControlChannel(ControlChannel&&) noexcept;
  ControlChannel& operator=(ControlChannel&&) noexcept;
  ~ControlChannel();

  // The next complete command line, without waiting; unknown words are skipped (perf ignores
  // them too). Commands perf knows but sonde's command does not take are returned for it to decline.
  std::optional<ControlCommand> next();
  void acknowledge();
  // Serves every complete command waiting: enable and disable through `set_enabled`, each command
  // acknowledged; true when one of them was "stop".
  Result<bool> serve(const std::function<Result<void>(bool enable)>& set_enabled);

 private:
  ControlChannel() = default;
  UniqueFd control_;
  UniqueFd ack_;
  std::string pending_;
};

}  // namespace sonde::capture
