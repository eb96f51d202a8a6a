// sonde ftrace marker TEXT: writes TEXT into the trace through trace_marker.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "base/strings.hpp"
#include "cli/event_options.hpp"
#include "cli/ftrace/ftrace_commands.hpp"
#include "ftrace/instance.hpp"

namespace sonde::cli {

int ftrace_marker(int argc, char** argv) {
  std::vector<std::string> words;
  std::string instance_name;
  CLI::App app{"Write text into the trace (trace_marker)", "sonde ftrace marker"};
  app.add_option("-B,--instance", instance_name, "the instance to mark (default: the top level)");
  app.add_option("text", words, "the text")->required();
  if (auto exit_code = parse_command_line(app, argc, argv, "ftrace marker")) return *exit_code;
  std::vector<std::string> rest = app.remaining();
  words.insert(words.end(), rest.begin(), rest.end());
  auto instance = instance_name.empty() ? ftrace::Instance::top() : ftrace::Instance::existing(instance_name);
  if (!instance) return report_error("ftrace marker", instance.error());
  if (auto written = instance->write("trace_marker", join(words, " ") + "\n"); !written)
    return report_error("ftrace marker", written.error());
  return 0;
}

}  // namespace sonde::cli
