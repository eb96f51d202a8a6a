#include "capture/signals.hpp"

#include <cerrno>
#include <ctime>

namespace sonde::capture {

BlockedSignals::BlockedSignals() {
  sigemptyset(&blocked_);
  for (int signal : {SIGINT, SIGTERM, SIGCHLD, SIGHUP}) sigaddset(&blocked_, signal);
  sigprocmask(SIG_BLOCK, &blocked_, &previous_);
}

BlockedSignals::~BlockedSignals() { sigprocmask(SIG_SETMASK, &previous_, nullptr); }

int BlockedSignals::wait(std::optional<std::chrono::nanoseconds> timeout) {
  while (true) {
    int signal;
    if (timeout) {
      auto ns = timeout->count() < 0 ? 0 : timeout->count();
      timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
      signal = sigtimedwait(&blocked_, nullptr, &ts);
    } else {
      signal = sigwaitinfo(&blocked_, nullptr);
    }
    if (signal > 0) return signal;
    if (errno == EAGAIN) return 0;
    if (errno != EINTR) return 0;
  }
}

}  // namespace sonde::capture
