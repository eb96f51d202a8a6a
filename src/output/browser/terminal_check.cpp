// terminal_usable (hist_browser.hpp) on its own: <term.h> defines macros named like common
// words (lines, columns) that the browser's code must not see.
#include <curses.h>
#include <term.h>
#include <unistd.h>

#include "output/browser/hist_browser.hpp"

namespace sonde::output {

bool terminal_usable() {
  if (!::isatty(STDIN_FILENO) || !::isatty(STDOUT_FILENO)) return false;
  // initscr() exits the program on a terminal its database does not know: ask first.
  int status = 0;
  return setupterm(nullptr, STDOUT_FILENO, &status) == OK;
}

}  // namespace sonde::output
