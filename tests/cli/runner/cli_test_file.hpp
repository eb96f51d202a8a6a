#pragma once
// The cases of a tests/cli/*.test file (the format is in tests/cli/README.md): a few directive
// lines per case, read by the cli_tests runner.
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::test {

struct CliCase {
  std::string suite;  // the file's stem
  std::string name;
  int line = 0;  // of NAME, for messages
  std::vector<std::string> setup;
  // The file's SETUP_ONCE lines: inputs every case of the file shares in {shared}, made again only
  // when these lines or the sonde binary change.
  std::vector<std::string> setup_once;
  std::string run;
  int exit = 0;
  int timeout_seconds = 60;
  std::vector<std::string> expect, expect_regex;                // stdout lines
  std::vector<std::string> expect_stderr, expect_stderr_regex;  // stderr lines
  bool stderr_empty = false;
  std::string stderr_is;    // stderr must be exactly this one line
  std::string expect_file;  // golden, relative to tests/cli/
  std::string same_as;      // the peer's command
  std::vector<std::string> masks;
  int min_lines = 0;  // stdout has at least this many lines (so a comparison compares something)
  std::vector<std::string> requires_;  // perf, root, trace-cmd, chromium, uprobes, kprobes
  std::vector<std::string> cleanup;
};

// The cases of `text`; an error names `file_name`:line and what is wrong there.
Result<std::vector<CliCase>> parse_cli_test_file(std::string_view text, const std::string& file_name);

}  // namespace sonde::test
