#include "cli/terminal_keys.hpp"

#include <poll.h>
#include <unistd.h>

namespace sonde::cli {

TerminalKeys::TerminalKeys() {
  if (!::isatty(STDIN_FILENO) || ::tcgetattr(STDIN_FILENO, &saved_) != 0) return;
  termios raw = saved_;
  raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  active_ = ::tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
}

int TerminalKeys::poll() {
  if (!active_) return -1;
  pollfd input{STDIN_FILENO, POLLIN, 0};
  if (::poll(&input, 1, 0) != 1 || !(input.revents & POLLIN)) return -1;
  unsigned char key;
  if (::read(STDIN_FILENO, &key, 1) != 1) return -1;
  return key;
}

void TerminalKeys::restore() {
  if (!active_) return;
  ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  active_ = false;
}

}  // namespace sonde::cli
