// Placeholder until the command lands: says so instead of pretending.
#include <fmt/format.h>

#include "cli/command.hpp"

namespace sonde::cli {

int cmd_heatmap(int, char**) {
  fmt::print(stderr, "sonde heatmap: not built yet\n");
  return 1;
}

}  // namespace sonde::cli
