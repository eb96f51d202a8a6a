// Placeholder until the subcommand lands: says so instead of pretending.
#include <fmt/format.h>

#include "cli/ftrace_commands.hpp"

namespace sonde::cli {

int ftrace_list(int, char**) {
  fmt::print(stderr, "sonde ftrace list: not built yet\n");
  return 1;
}

}  // namespace sonde::cli
