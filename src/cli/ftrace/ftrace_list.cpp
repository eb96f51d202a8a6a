// sonde ftrace list: tracers, events, filterable functions and options (trace-cmd list).
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli/event_options.hpp"
#include "cli/ftrace/ftrace_commands.hpp"
#include "ftrace/listing.hpp"

namespace sonde::cli {

namespace {
void print_lines(const std::vector<std::string>& lines) {
  for (const auto& line : lines) fmt::print("{}\n", line);
}
}  // namespace

int ftrace_list(int argc, char** argv) {
  bool tracers = false, events = false, functions = false, options = false;
  std::string glob;
  CLI::App app{"List tracers, events, filterable functions, options (trace-cmd list)", "sonde ftrace list"};
  app.add_flag("-t,--tracers", tracers, "tracers");
  app.add_flag("-e,--events", events, "trace events (subsys:event)");
  app.add_flag("-f,--functions", functions,
               "functions the function tracer can filter on (:mod:NAME for a module's)");
  app.add_flag("-o,--options", options, "trace options");
  app.add_option("glob", glob, "only names matching this glob ('sched:*', 'vfs_*')");
  if (auto exit_code = parse_command_line(app, argc, argv, "ftrace list")) return *exit_code;
  if (!app.remaining().empty())
    return report_usage_error("ftrace list",
                              fmt::format("unexpected '{}'; give one glob", app.remaining().front()));
  bool all = !tracers && !events && !functions && !options;
  bool headings = all || (tracers + events + functions + options) > 1;
  if (events || all) {
    auto names = ftrace::list_events(glob);
    if (!names) return report_error("ftrace list", names.error());
    if (headings) fmt::print("events:\n");
    print_lines(*names);
  }
  if (tracers || all) {
    if (headings) fmt::print("\ntracers:\n");
    print_lines(ftrace::list_tracers(glob));
  }
  if (options || all) {
    auto names = ftrace::list_options(glob);
    if (!names) return report_error("ftrace list", names.error());
    if (headings) fmt::print("\noptions:\n");
    print_lines(*names);
  }
  if (functions) {
    auto names = ftrace::list_functions(glob);
    if (!names) return report_error("ftrace list -f", names.error());
    if (headings) fmt::print("\nfunctions:\n");
    print_lines(*names);
  }
  return 0;
}

}  // namespace sonde::cli
