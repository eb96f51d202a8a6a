// sonde ftrace show: the machine's tracing state in one screen.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli/event_options.hpp"
#include "cli/ftrace/ftrace_commands.hpp"
#include "ftrace/machine_state.hpp"

namespace sonde::cli {

int ftrace_show(int argc, char** argv) {
  CLI::App app{"The machine's tracing state: tracers, events, filters, triggers, buffers, instances",
               "sonde ftrace show"};
  if (auto exit_code = parse_command_line(app, argc, argv, "ftrace show")) return *exit_code;
  if (!app.remaining().empty())
    return report_usage_error("ftrace show", fmt::format("unexpected '{}'", app.remaining().front()));
  auto state = ftrace::read_machine_state();
  if (!state) return report_error("ftrace show", state.error());
  fmt::print("{}", ftrace::format_machine_state(*state));
  return 0;
}

}  // namespace sonde::cli
