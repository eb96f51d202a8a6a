#include "cli/command.hpp"
namespace sonde::cli {
int cmd_list(int, char**) { return 1; }
}  // namespace sonde::cli
