// Placeholder until the command lands: says so instead of pretending.
#include <fmt/format.h>

#include "cli/command.hpp"

namespace sonde::cli {

int cmd_script(int, char**) {
  fmt::print(stderr, "sonde script: not built yet\n");
  return 1;
}

}  // namespace sonde::cli
