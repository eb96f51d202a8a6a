#pragma once
// sonde's own signal handling while it measures: SIGINT, SIGTERM, SIGCHLD (and SIGHUP) are
// blocked and waited for synchronously, so no handler runs at an awkward moment and the
// measurement always ends through the same path that finalizes output and restores state.
#include <chrono>
#include <csignal>
#include <optional>

namespace sonde::capture {

class BlockedSignals {
 public:
  BlockedSignals();
  ~BlockedSignals();
  BlockedSignals(const BlockedSignals&) = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;

  // Waits up to `timeout` (forever when nullopt) for one of the signals; the signal number, or
  // 0 on timeout.
  int wait(std::optional<std::chrono::nanoseconds> timeout);

 private:
  sigset_t blocked_{};
  sigset_t previous_{};
};

}  // namespace sonde::capture
