#include "cli/event_options.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>

#include "base/strings.hpp"
#include "events/parse_events.hpp"
#include "events/tracepoint_filter.hpp"
#include "symbols/buildid_cache.hpp"

namespace sonde::cli {

void add_event_options(CLI::App& app, EventOptions& options, const std::string& command_name) {
  app.add_option_function<std::string>(
         "-e,--event",
         [&options](const std::string& spec) {
           if (options.error) return;
           options.from_last_option = options.events.size();
           if (auto parsed = events::parse_events(spec, options.events); !parsed)
             options.error = parsed.error();
         },
         "event selector; 'sonde list' lists them")
      ->trigger_on_parse();
  app.add_option_function<std::string>(
         "--filter",
         [&options, command_name](const std::string& filter) {
           if (options.error) return;
           bool applied = false;
           for (size_t i = options.from_last_option; i < options.events.size(); ++i) {
             if (!options.events[i].is_tracepoint()) continue;
             if (auto set = events::set_tracepoint_filter(options.events[i], filter); !set) {
               options.error = set.error();
               return;
             }
             applied = true;
           }
           if (!applied)
             options.error = Error{fmt::format("sonde {}: --filter must follow a tracepoint event "
                                               "(-e subsys:event --filter 'expr')",
                                               command_name),
                                   Error::Kind::usage};
         },
         "event filter for the tracepoints of the preceding -e")
      ->trigger_on_parse();
  if (command_name != "record") return;
  // perf record's --exclude-perf: the preceding tracepoints leave out what sonde itself does
  // (its writes of the file, its reads of /proc), as "common_pid != PID" added to their filter.
  app.add_flag_function(
         "--exclude-perf",
         [&options](std::int64_t) {
           if (options.error) return;
           bool applied = false;
           for (size_t i = options.from_last_option; i < options.events.size(); ++i) {
             auto& event = options.events[i];
             if (!event.is_tracepoint()) continue;
             std::string own = fmt::format("common_pid != {}", ::getpid());
             event.filter = event.filter.empty() ? own : fmt::format("({}) && ({})", event.filter, own);
             applied = true;
           }
           if (!applied)
             options.error = Error{
                 "sonde record: --exclude-perf must follow a tracepoint event "
                 "(-e subsys:event --exclude-perf)",
                 Error::Kind::usage};
         },
         "leave sonde's own activity out of the preceding -e tracepoints")
      ->trigger_on_parse();
}

Result<std::vector<std::string>> command_after_options(const CLI::App& app, const std::string& command_name) {
  std::vector<std::string> command = app.remaining();
  if (!command.empty() && command.front() == "--") {
    command.erase(command.begin());
  } else if (!command.empty() && command.front().starts_with("-")) {
    return fail_usage(fmt::format("sonde {}: unknown option '{}'; see 'sonde {} --help'", command_name,
                                  command.front(), command_name));
  }
  return command;
}

std::vector<std::string> sdt_event_arguments(int argc, char** argv) {
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;
    std::string_view value;
    if ((arg == "-e" || arg == "--event") && i + 1 < argc)
      value = argv[++i];
    else if (arg.starts_with("--event="))
      value = arg.substr(8);
    else if (arg.starts_with("-e") && arg.size() > 2 && !arg.starts_with("--"))
      value = arg.substr(2);
    for (const std::string& token : split(value, ','))
      if (token.starts_with("sdt_") && token.find(':') != std::string::npos) names.push_back(token);
  }
  return names;
}

Result<void> define_sdt_events(pipeline::TemporarySdtProbes& probes, int argc, char** argv,
                               const std::string& command_name) {
  auto diagnostics = Diagnostics::printing_to(stderr, "sonde " + command_name + ": warning: ");
  return probes.define(sdt_event_arguments(argc, argv), symbols::buildid_cache_dir(), diagnostics);
}

}  // namespace sonde::cli
