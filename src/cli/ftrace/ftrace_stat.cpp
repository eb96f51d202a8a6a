// sonde ftrace stat: each CPU's ring-buffer statistics.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli/event_options.hpp"
#include "cli/ftrace/ftrace_commands.hpp"
#include "pipeline/ftrace_runs.hpp"

namespace sonde::cli {

int ftrace_stat(int argc, char** argv) {
  std::string instance_name;
  CLI::App app{"Per-CPU buffer statistics: entries, overrun, dropped", "sonde ftrace stat"};
  app.add_option("-B,--instance", instance_name, "an instance's buffers (default: the top level)");
  if (auto exit_code = parse_command_line(app, argc, argv, "ftrace stat")) return *exit_code;
  if (!app.remaining().empty())
    return report_usage_error("ftrace stat", fmt::format("unexpected '{}'", app.remaining().front()));
  auto table = pipeline::ftrace_buffer_stats_table(instance_name);
  if (!table) return report_error("ftrace stat", table.error());
  fmt::print("{}", *table);
  return 0;
}

}  // namespace sonde::cli
