#pragma once
// A pseudo-terminal for tests of what sonde draws only on terminals.
#include <fcntl.h>
#include <pty.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace sonde::test {

// A pseudo-terminal: `terminal` is its slave end as a FILE, read() gives what was written.
struct PseudoTerminal {
  PseudoTerminal(const PseudoTerminal&) = delete;
  PseudoTerminal& operator=(const PseudoTerminal&) = delete;
  int master = -1, slave = -1;
  std::FILE* terminal = nullptr;
  PseudoTerminal() {
    if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) return;
    ::fcntl(master, F_SETFL, O_NONBLOCK);
    terminal = ::fdopen(::dup(slave), "w");
  }
  ~PseudoTerminal() {
    if (terminal) std::fclose(terminal);
    if (slave >= 0) ::close(slave);
    if (master >= 0) ::close(master);
  }
  std::string read() {
    std::string out;
    char buffer[4096];
    ssize_t got;
    while ((got = ::read(master, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(got));
    return out;
  }
};

}  // namespace sonde::test
