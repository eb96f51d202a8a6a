// sonde ftrace snapshot: swaps the live buffer into the snapshot buffer, prints it, frees it.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

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
    return report_error({fmt::format("sonde ftrace snapshot: unexpected '{}'", app.remaining().front()), Error::Kind::usage});
  auto instance = instance_name.empty() ? ftrace::Instance::top() : ftrace::Instance::existing(instance_name);
  if (!instance) return report_error(instance.error().with_context("sonde ftrace snapshot"));
  if (!path_exists(instance->path("snapshot")))
    return report_error({"sonde ftrace snapshot: snapshots are not available on this kernel (CONFIG_TRACER_SNAPSHOT)"});
  if (auto taken = instance->write("snapshot", "1"); !taken)
    return report_error(taken.error().with_context("sonde ftrace snapshot"));
  auto text = instance->read("snapshot");
  if (!keep) (void)instance->write("snapshot", "0");
  if (!text) return report_error(text.error().with_context("sonde ftrace snapshot"));
  fmt::print("{}", *text);
  return 0;
}

}  // namespace sonde::cli
