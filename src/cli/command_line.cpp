#include "cli/command_line.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>

namespace sonde::cli {

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, std::string_view command_name,
                                      AfterOptions after) {
  if (after == AfterOptions::command) app.prefix_command();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());
    return 0;
  } catch (const CLI::ExtrasError& error) {
    // Said as the commands that take a command after their options say it.
    std::vector<std::string> extras = app.remaining();
    std::string what = error.what();
    if (!extras.empty())
      what = extras.front().starts_with('-') ? fmt::format("unknown option '{}'", extras.front())
                                             : fmt::format("unexpected argument '{}'", extras.front());
    fmt::print(stderr, "sonde {}: {}; see 'sonde {} --help'\n", command_name, what, command_name);
    return 129;
  } catch (const CLI::ParseError& error) {
    fmt::print(stderr, "sonde {}: {}; see 'sonde {} --help'\n", command_name, error.what(), command_name);
    return 129;
  }
  return std::nullopt;
}

int run_command(int (*command)(int, char**), std::vector<std::string> words) {
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  return command(static_cast<int>(words.size()), argv.data());
}

int exit_status(const Error& error) {
  switch (error.kind) {
    case Error::Kind::usage:
      return 129;  // perf's status for usage errors
    case Error::Kind::cannot_run:
      return error.sys_errno == EACCES ? 126 : 127;  // as a shell
    case Error::Kind::command_ended:
      return error.command_status;
    case Error::Kind::failed:
      break;
  }
  return 1;
}

int report_error(std::string_view command_name, const Error& error) {
  fmt::print(stderr, "sonde {}: {}\n", command_name, error.message);
  return exit_status(error);
}

int report_errno_error(std::string_view command_name, const Error& error) {
  fmt::print(stderr, "sonde {}: {}\n", command_name, error.message);
  return errno_exit_status(error);
}

int errno_exit_status(const Error& error) {
  if (error.kind == Error::Kind::failed && error.sys_errno > 0 && error.sys_errno < 256)
    return 256 - error.sys_errno;
  if (error.kind == Error::Kind::usage) return 256 - EINVAL;  // perf probe's parse errors are -EINVAL
  return exit_status(error);
}

int report_usage_error(std::string_view command_name, std::string message) {
  return report_error(command_name, Error{std::move(message), Error::Kind::usage});
}

int report_error(const Error& error) {
  fmt::print(stderr, "{}\n", error.message);
  return exit_status(error);
}

}  // namespace sonde::cli
