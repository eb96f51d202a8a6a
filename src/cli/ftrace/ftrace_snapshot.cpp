// sonde ftrace snapshot: swaps the live buffer into the snapshot buffer, prints it, frees it.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "base/file.hpp"
#include "cli/event_options.hpp"
#include "cli/ftrace/ftrace_commands.hpp"
#include "ftrace/instance.hpp"

namespace sonde::cli {

int ftrace_snapshot(int argc, char** argv) {
  std::string instance_name;
  bool keep = false;
  CLI::App app{"Take a snapshot of the trace buffer and print it", "sonde ftrace snapshot"};
  app.add_option("-B,--instance", instance_name, "an instance's buffer (default: the top level)");
  app.add_flag("-k,--keep", keep, "keep the snapshot buffer allocated afterwards");
  if (auto exit_code = parse_command_line(app, argc, argv, "ftrace snapshot")) return *exit_code;
  if (!app.remaining().empty())
    return report_usage_error("ftrace snapshot", fmt::format("unexpected '{}'", app.remaining().front()));
  auto instance = instance_name.empty() ? ftrace::Instance::top() : ftrace::Instance::existing(instance_name);
  if (!instance) return report_error("ftrace snapshot", instance.error());
  if (!path_exists(instance->path("snapshot")))
    return report_error(
        {"sonde ftrace snapshot: snapshots are not available on this kernel (CONFIG_TRACER_SNAPSHOT)"});
  if (auto taken = instance->write("snapshot", "1"); !taken)
    return report_error("ftrace snapshot", taken.error());
  auto text = instance->read("snapshot");
  if (!keep) (void)instance->write("snapshot", "0");
  if (!text) return report_error("ftrace snapshot", text.error());
  fmt::print("{}", *text);
  return 0;
}

}  // namespace sonde::cli
