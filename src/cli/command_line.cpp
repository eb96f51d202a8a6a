#include "cli/command_line.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "base/strings.hpp"

namespace sonde::cli {

namespace {

std::vector<const CLI::Option*>& attached_only_options() {
  static std::vector<const CLI::Option*> options;  // one command line per process
  return options;
}

// perf's optional values are attached (-IAX, --user-regs=AX): after a bare option that may take
// one, the next word is the command, not its value. CLI11 would take it, so such an option
// standing alone before the command is taken out of the words and given its empty value after
// the parse (`bare`).
std::vector<std::string> attach_optional_values(CLI::App& app, int argc, char** argv,
                                                std::vector<CLI::Option*>& bare) {
  std::vector<std::string> words(argv, argv + argc);
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word == "--" || !word.starts_with('-') || word.size() < 2) break;  // the command starts here
    bool is_long = word.starts_with("--");
    std::string name = is_long ? word.substr(0, word.find('=')) : word.substr(0, 2);
    CLI::Option* option = app.get_option_no_throw(name);
    if (option == nullptr || option->get_expected_max() == 0) continue;
    const auto& marked = attached_only_options();
    bool attached_only = std::find(marked.begin(), marked.end(), option) != marked.end();
    bool attached = is_long ? word.find('=') != std::string::npos : word.size() > 2;
    if (attached) continue;
    if (attached_only) {
      bare.push_back(option);
      words.erase(words.begin() + static_cast<std::ptrdiff_t>(i--));
    } else {
      ++i;  // its value
    }
  }
  return words;
}

}  // namespace

CLI::Option* value_attached_only(CLI::Option* option) {
  attached_only_options().push_back(option);
  return option;
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, std::string_view command_name,
                                      AfterOptions after) {
  std::vector<std::string> words;
  std::vector<char*> rewritten;
  std::vector<CLI::Option*> bare;
  if (after == AfterOptions::command) {
    app.prefix_command();
    words = attach_optional_values(app, argc, argv, bare);
    for (auto& word : words) rewritten.push_back(word.data());
    argc = static_cast<int>(words.size());
    argv = rewritten.data();
  }
  try {
    app.parse(argc, argv);
    for (CLI::Option* option : bare) {
      option->add_result(std::string());
      option->run_callback();
    }
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

std::optional<std::vector<size_t>> parse_column_widths(const std::string& text) {
  std::vector<size_t> widths;
  for (const std::string& width : text.empty() ? std::vector<std::string>{} : split(text, ',')) {
    auto value = parse_uint(width, 10);
    if (!value || *value > 4096) return std::nullopt;
    widths.push_back(*value);
  }
  return widths;
}

}  // namespace sonde::cli
