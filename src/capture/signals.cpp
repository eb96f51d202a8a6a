#include "capture/signals.hpp"

#include <cerrno>
#include <ctime>

namespace sonde::capture {

void take_stop_signals() {
  for (int signal : {SIGINT, SIGTERM}) {
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) {
      struct sigaction default_action {};
      default_action.sa_handler = SIG_DFL;
      sigemptyset(&default_action.sa_mask);
      sigaction(signal, &default_action, nullptr);
    }
  }
}

BlockedSignals::BlockedSignals(bool switch_signal) {
  sigemptyset(&blocked_);
  for (int signal : {SIGINT, SIGTERM, SIGCHLD, SIGPIPE}) sigaddset(&blocked_, signal);
  if (switch_signal) sigaddset(&blocked_, SIGUSR2);
  // Under nohup SIGHUP is ignored and must stay so: blocked, it would be queued and stop the run.
  struct sigaction hangup {};
  if (sigaction(SIGHUP, nullptr, &hangup) != 0 || hangup.sa_handler != SIG_IGN) sigaddset(&blocked_, SIGHUP);
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
