#pragma once
// Single keys from a terminal on standard input, without Enter or echo (perf top's keys): the
// terminal's settings are changed only when standard input is one, and put back by restore()
// or the destructor. Ctrl-C still sends SIGINT.
#include <termios.h>

namespace sonde::cli {

class TerminalKeys {
 public:
  TerminalKeys();
  ~TerminalKeys() { restore(); }
  TerminalKeys(const TerminalKeys&) = delete;
  TerminalKeys& operator=(const TerminalKeys&) = delete;

  // The next key pressed, or -1 when none is waiting (or standard input is not a terminal).
  int poll();
  void restore();

 private:
  bool active_ = false;
  termios saved_{};
};

}  // namespace sonde::cli
