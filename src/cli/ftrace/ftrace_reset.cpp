// sonde ftrace reset: the top level back to the kernel's defaults, blktrace off, and the
// instances sonde left behind removed (every instance with -a).
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli/event_options.hpp"
#include "cli/ftrace/ftrace_commands.hpp"
#include "ftrace/machine_state.hpp"

namespace sonde::cli {

int ftrace_reset(int argc, char** argv) {
  bool all_instances = false;
  CLI::App app{"Restore the tracing defaults (trace-cmd reset)", "sonde ftrace reset"};
  app.add_flag("-a,--all", all_instances, "remove every tracefs instance, not only those sonde left behind");
  if (auto exit_code = parse_command_line(app, argc, argv, "ftrace reset")) return *exit_code;
  if (!app.remaining().empty())
    return report_usage_error("ftrace reset", fmt::format("unexpected '{}'", app.remaining().front()));
  auto report = ftrace::reset_machine(all_instances);
  for (const auto& name : report.removed_instances)
    fmt::print(stderr, "sonde ftrace reset: removed instance {}\n", name);
  for (const auto& failure : report.failures) fmt::print(stderr, "sonde ftrace reset: {}\n", failure.message);
  return report.failures.empty() ? 0 : 1;
}

}  // namespace sonde::cli
