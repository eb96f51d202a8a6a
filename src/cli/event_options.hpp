#pragma once
// What the commands' command lines share: -e and --filter in perf's order (a filter
// applies to the tracepoints of the -e before it), and the command after the options.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "cli/command_line.hpp"
#include "events/event_spec.hpp"
#include "pipeline/sdt_cache.hpp"

namespace sonde::cli {

struct EventOptions {
  std::vector<events::EventSpec> events;
  std::optional<Error> error;   // the first -e/--filter error, reported after parsing
  size_t from_last_option = 0;  // where the last -e's events start
};

// Adds -e/--event and --filter to `app`, parsed as they appear on the command line.
void add_event_options(CLI::App& app, EventOptions& options, const std::string& command_name);

// The SDT events (`sdt_PROVIDER:NAME`, globs) the -e arguments of argv name, before parsing:
// they must be defined from the build-id cache before the event parser looks them up.
std::vector<std::string> sdt_event_arguments(int argc, char** argv);
// Defines those from the build-id cache for the run, and takes over the SDT events a killed
// run left defined, each with a "sonde COMMAND: warning: ..." line.
Result<void> define_sdt_events(pipeline::TemporarySdtProbes& probes, int argc, char** argv,
                               const std::string& command_name);

// The command to run after the options ("--" dropped); an error for an unknown option, which
// would otherwise be taken for the command.
Result<std::vector<std::string>> command_after_options(const CLI::App& app, const std::string& command_name);

}  // namespace sonde::cli
