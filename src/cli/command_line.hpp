#pragma once
// The one command-line parse and the one error path every command goes through: help on
// stdout (exit 0), a usage error as "sonde CMD: what; see 'sonde CMD --help'" (exit 129), and an
// Error as "sonde CMD: message" with the exit status its kind says. Exit statuses and the
// "sonde CMD:" prefix are decided here and nowhere below cli/.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::cli {

// What may follow the options on a command line.
enum class AfterOptions {
  command,  // a command to run, or arguments the command checks itself (app.remaining())
  nothing,  // only what the app declares (positionals included); anything else is a usage error
};

// Parses argv; nullopt to go on, else the exit status to end with (help printed, or the usage
// error reported).
// Runs another command's entry point on these words (its name first), as `trace record` and
// `sched record` run `record`.
int run_command(int (*command)(int, char**), std::vector<std::string> words);

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, std::string_view command_name,
                                      AfterOptions after = AfterOptions::command);

// Marks an option declared with expected(0, 1) as perf's optional-argument kind (perf's OPTARG):
// its value is attached (-IAX, --switch-output=10s), and a bare one before the command leaves
// the next word to the command, as `perf record -I ls` runs ls.
CLI::Option* value_attached_only(CLI::Option* option);

// The exit status an error ends a command with: 129 for usage, 127/126 for a command that cannot
// be run (as a shell), the command's own status when it ended before it started, 1 otherwise.
int exit_status(const Error& error);

// "sonde CMD: message" on stderr; the exit status to return.
int report_error(std::string_view command_name, const Error& error);
// "sonde CMD: message" for the commands that, like perf probe, exit with perf's -errno & 0xff
// (254 for ENOENT, 234 for EINVAL, 239 for EEXIST...): the error's errno picks it; usage errors
// keep 129 and an error without errno gives 1.
int report_errno_error(std::string_view command_name, const Error& error);
// That status alone, for -q (perf probe -q prints no error).
int errno_exit_status(const Error& error);
// A usage error of the command's (exit 129).
int report_usage_error(std::string_view command_name, std::string message);

// perf's --column-widths "w[,w...]" (report, top): each width a number up to 4096; nullopt when
// one is not.
std::optional<std::vector<size_t>> parse_column_widths(const std::string& text);
// The message as it is, for the few that carry their own layout (the event parser's caret
// diagram); the exit status to return.
int report_error(const Error& error);

}  // namespace sonde::cli
