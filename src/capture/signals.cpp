#include "capture/signals.hpp"

#include <cerrno>
#include <ctime>

namespace sonde::capture {

BlockedSignals::BlockedSignals() {
  sigemptyset(&blocked_);
  for (int signal : {SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGPIPE}) sigaddset(&blocked_, signal);
  sigprocmask(SIG_BLOCK, &blocked_, &previous_);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(SIGCHLD, &default_action, &previous_chld_);
}

BlockedSignals::~BlockedSignals() {
  while (poll().number != 0) {
  }
  sigaction(SIGCHLD, &previous_chld_, nullptr);
  sigprocmask(SIG_SETMASK, &previous_, nullptr);
}

ReceivedSignal BlockedSignals::wait(std::optional<std::chrono::nanoseconds> timeout) {
  while (true) {
    siginfo_t info{};
    int signal;
    if (timeout) {
      auto ns = timeout->count() < 0 ? 0 : timeout->count();
      timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
      signal = sigtimedwait(&blocked_, &info, &ts);
    } else {
      signal = sigwaitinfo(&blocked_, &info);
    }
    if (signal > 0) return {signal, info.si_code == SI_KERNEL};
    if (errno != EINTR) return {};
  }
}

}  // namespace sonde::capture
