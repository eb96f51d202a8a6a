#include "cli_test_file.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include "base/strings.hpp"

namespace sonde::test {

namespace {

const std::set<std::string, std::less<>> kFacilities = {"perf",    "root",    "trace-cmd", "chromium",
                                                        "uprobes", "kprobes", "strace"};

std::string stem_of(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  return base.substr(0, base.find('.'));
}

bool valid_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace

Result<std::vector<CliCase>> parse_cli_test_file(std::string_view text, const std::string& file_name) {
  std::vector<CliCase> cases;
  std::vector<std::string> setup_once;
  std::set<std::string, std::less<>> names;
  int number = 0;
  auto wrong = [&](int line, std::string_view what) { return failf("{}:{}: {}", file_name, line, what); };
  auto finish = [&]() -> Result<void> {
    if (!cases.empty() && cases.back().run.empty())
      return wrong(cases.back().line, "case '" + cases.back().name + "' has no RUN");
    return {};
  };
  for (const std::string& line : split(text, '\n')) {
    ++number;
    std::string_view trimmed = trim(line);
    if (trimmed.empty() || trimmed.front() == '#') continue;
    // The argument is everything after the directive's one space, verbatim: an expected line
    // may start or end with spaces.
    std::string_view content = std::string_view(line).substr(line.find_first_not_of(" \t"));
    if (content.ends_with('\r')) content.remove_suffix(1);
    size_t space = content.find(' ');
    std::string_view directive = trim(content.substr(0, space));
    std::string argument(space == std::string_view::npos ? std::string_view() : content.substr(space + 1));
    if (directive == "NAME") {
      if (auto finished = finish(); !finished) return tl::unexpected(finished.error());
      if (!valid_name(argument))
        return wrong(number, "NAME takes letters, digits and '_': '" + argument + "'");
      if (!names.insert(argument).second) return wrong(number, "a second case named '" + argument + "'");
      cases.push_back(
          {.suite = stem_of(file_name), .name = argument, .line = number, .setup_once = setup_once});
      continue;
    }
    if (directive == "SETUP_ONCE") {
      if (!cases.empty()) return wrong(number, "SETUP_ONCE goes before the first NAME");
      if (argument.empty()) return wrong(number, "SETUP_ONCE needs an argument");
      setup_once.push_back(argument);
      continue;
    }
    if (cases.empty()) return wrong(number, "'" + std::string(directive) + "' before the first NAME");
    CliCase& current = cases.back();
    bool needs_argument = directive != "EXPECT_STDERR_EMPTY";
    if (needs_argument && argument.empty())
      return wrong(number, std::string(directive) + " needs an argument");
    auto as_number = [&](int& into) -> Result<void> {
      auto parsed = parse_uint(argument, 10);
      if (!parsed || *parsed > 100000)
        return wrong(number, std::string(directive) + " takes a number: '" + argument + "'");
      into = static_cast<int>(*parsed);
      return {};
    };
    auto as_regex = [&](std::vector<std::string>& into) -> Result<void> {
      try {
        std::regex check(argument);
      } catch (const std::regex_error& error) {
        return wrong(number, "bad regex '" + argument + "': " + error.what());
      }
      into.push_back(argument);
      return {};
    };
    Result<void> done;
    if (directive == "RUN") {
      if (!current.run.empty()) return wrong(number, "a second RUN in case '" + current.name + "'");
      current.run = argument;
    } else if (directive == "SETUP") {
      current.setup.push_back(argument);
    } else if (directive == "EXIT") {
      done = as_number(current.exit);
    } else if (directive == "MIN_LINES") {
      done = as_number(current.min_lines);
    } else if (directive == "TIMEOUT") {
      done = as_number(current.timeout_seconds);
    } else if (directive == "EXPECT") {
      current.expect.push_back(argument);
    } else if (directive == "EXPECT_REGEX") {
      done = as_regex(current.expect_regex);
    } else if (directive == "EXPECT_STDERR") {
      current.expect_stderr.push_back(argument);
    } else if (directive == "EXPECT_STDERR_REGEX") {
      done = as_regex(current.expect_stderr_regex);
    } else if (directive == "STDERR_IS") {
      current.stderr_is = argument;
    } else if (directive == "EXPECT_STDERR_EMPTY") {
      current.stderr_empty = true;
    } else if (directive == "EXPECT_FILE") {
      current.expect_file = argument;
    } else if (directive == "SAME_AS") {
      current.same_as = argument;
    } else if (directive == "MASK") {
      done = as_regex(current.masks);
    } else if (directive == "REQUIRES") {
      for (const auto& facility : split(argument, ' ')) {
        if (facility.empty()) continue;
        if (!kFacilities.contains(facility))
          return wrong(number,
                       "REQUIRES knows perf, root, trace-cmd, strace, chromium, uprobes and kprobes, not '" +
                           std::string(facility) + "'");
        current.requires_.emplace_back(facility);
      }
    } else if (directive == "CLEANUP") {
      current.cleanup.push_back(argument);
    } else {
      return wrong(number, "unknown directive '" + std::string(directive) + "'");
    }
    if (!done) return tl::unexpected(done.error());
  }
  if (auto finished = finish(); !finished) return tl::unexpected(finished.error());
  return cases;
}

}  // namespace sonde::test
