// sonde ftrace: dispatches to one file per subcommand.
#include <fmt/format.h>

#include <cstring>
#include <string_view>
#include <vector>

#include "cli/command.hpp"
#include "cli/ftrace/ftrace_commands.hpp"

namespace sonde::cli {

namespace {
const std::vector<Command>& ftrace_subcommands() {
  static const std::vector<Command> table = {
      {"list", "Tracers, events, filterable functions, options", ftrace_list},
      {"record", "Trace into a trace.dat", ftrace_record},
      {"report", "Print a trace.dat as trace-cmd report does", ftrace_report},
      {"stream", "Print events live from the per-CPU buffers", ftrace_stream},
      {"show", "The machine's current tracing state", ftrace_show},
      {"reset", "Restore tracing defaults", ftrace_reset},
      {"marker", "Write text to trace_marker", ftrace_marker},
      {"snapshot", "Take and print a snapshot", ftrace_snapshot},
      {"stat", "Per-CPU buffer statistics", ftrace_stat},
  };
  return table;
}

void print_ftrace_usage(std::FILE* out) {
  fmt::print(out, "\n usage: sonde ftrace SUBCOMMAND [ARGS]\n\n");
  for (const auto& sub : ftrace_subcommands()) fmt::print(out, "   {:<10}{}\n", sub.name, sub.summary);
  fmt::print(out, "\n");
}
}  // namespace

int cmd_ftrace(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    print_ftrace_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 129 : 0;
  }
  std::string_view name = argv[1];
  for (const auto& sub : ftrace_subcommands()) {
    if (sub.name == name) return sub.run(argc - 1, argv + 1);
  }
  fmt::print(stderr, "sonde ftrace: unknown subcommand '{}'. See 'sonde ftrace --help'.\n", name);
  return 129;
}

}  // namespace sonde::cli
