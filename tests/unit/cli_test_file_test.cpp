// The tests/cli/*.test parser: directives into cases, and a wrong file failing loudly with its
// file:line.
#include "../cli/runner/cli_test_file.hpp"

#include <gtest/gtest.h>

using sonde::test::parse_cli_test_file;

TEST(CliTestFile, DirectivesFillTheirCase) {
  auto cases = parse_cli_test_file(
      "# a comment\n"
      "NAME first\n"
      "REQUIRES perf root\n"
      "SETUP {sonde} record -o {tmp}/p.data true\n"
      "RUN {sonde} report -i {tmp}/p.data --stdio\n"
      "EXPECT # Samples: 1\n"
      "EXPECT_REGEX ^# Event count\n"
      "MASK [0-9]+\n"
      "SAME_AS perf report -i {tmp}/p.data --stdio\n"
      "EXIT 0\n"
      "TIMEOUT 5\n"
      "MIN_LINES 12\n"
      "CLEANUP rm -f x\n"
      "\n"
      "NAME second\n"
      "RUN {sonde} nothing\n"
      "EXIT 1\n"
      "EXPECT_STDERR sonde: 'nothing' is not a sonde command. See 'sonde --help'.\n"
      "EXPECT_STDERR_EMPTY\n"
      "STDERR_IS one line\n"
      "EXPECT_FILE golden/x.txt\n",
      "tests/cli/report.test");
  ASSERT_TRUE(cases) << cases.error().message;
  ASSERT_EQ(cases->size(), 2u);
  const auto& first = (*cases)[0];
  EXPECT_EQ(first.suite, "report");
  EXPECT_EQ(first.name, "first");
  EXPECT_EQ(first.line, 2);
  EXPECT_EQ(first.requires_, (std::vector<std::string>{"perf", "root"}));
  EXPECT_EQ(first.setup, (std::vector<std::string>{"{sonde} record -o {tmp}/p.data true"}));
  EXPECT_EQ(first.run, "{sonde} report -i {tmp}/p.data --stdio");
  EXPECT_EQ(first.expect, (std::vector<std::string>{"# Samples: 1"}));
  EXPECT_EQ(first.expect_regex, (std::vector<std::string>{"^# Event count"}));
  EXPECT_EQ(first.masks, (std::vector<std::string>{"[0-9]+"}));
  EXPECT_EQ(first.same_as, "perf report -i {tmp}/p.data --stdio");
  EXPECT_EQ(first.timeout_seconds, 5);
  EXPECT_EQ(first.min_lines, 12);
  EXPECT_EQ(first.cleanup, (std::vector<std::string>{"rm -f x"}));
  auto shared = parse_cli_test_file("SETUP_ONCE make {shared}/a\nNAME a\nRUN x\nNAME b\nRUN y\n", "t.test");
  ASSERT_TRUE(shared);
  EXPECT_EQ((*shared)[1].setup_once, (std::vector<std::string>{"make {shared}/a"}));
  const auto& second = (*cases)[1];
  EXPECT_EQ(second.exit, 1);
  EXPECT_EQ(second.expect_stderr.size(), 1u);
  EXPECT_TRUE(second.stderr_empty);
  EXPECT_EQ(second.stderr_is, "one line");
  auto spaced = parse_cli_test_file("NAME a\nRUN x\nEXPECT   \\___ here  \n", "t.test");
  ASSERT_TRUE(spaced);
  EXPECT_EQ((*spaced)[0].expect, (std::vector<std::string>{"  \\___ here  "})) << "arguments are verbatim";
  EXPECT_EQ(second.expect_file, "golden/x.txt");
}

TEST(CliTestFile, MistakesNameTheFileAndLine) {
  auto error_of = [](const char* text) {
    auto cases = parse_cli_test_file(text, "t.test");
    return cases ? std::string("parsed") : cases.error().message;
  };
  EXPECT_EQ(error_of("NAME a\nRUN x\nEXPECTED y\n"), "t.test:3: unknown directive 'EXPECTED'");
  EXPECT_EQ(error_of("NAME a\nEXIT 1\n\nNAME b\nRUN y\n"), "t.test:1: case 'a' has no RUN");
  EXPECT_EQ(error_of("NAME a\nRUN x\nNAME b\n"), "t.test:3: case 'b' has no RUN");
  EXPECT_EQ(error_of("RUN x\n"), "t.test:1: 'RUN' before the first NAME");
  EXPECT_EQ(error_of("NAME a\nRUN x\nRUN y\n"), "t.test:3: a second RUN in case 'a'");
  EXPECT_EQ(error_of("NAME a\nRUN x\nNAME a\nRUN y\n"), "t.test:3: a second case named 'a'");
  EXPECT_EQ(error_of("NAME a b\nRUN x\n"), "t.test:1: NAME takes letters, digits and '_': 'a b'");
  EXPECT_EQ(error_of("NAME a\nRUN x\nEXIT one\n"), "t.test:3: EXIT takes a number: 'one'");
  EXPECT_EQ(
      error_of("NAME a\nRUN x\nREQUIRES gpu\n"),
      "t.test:3: REQUIRES knows perf, root, trace-cmd, strace, chromium, uprobes and kprobes, not 'gpu'");
  EXPECT_EQ(error_of("NAME a\nRUN x\nEXPECT_REGEX (\n").rfind("t.test:3: bad regex '(': ", 0), 0u);
  EXPECT_EQ(error_of("NAME a\nRUN\n"), "t.test:2: RUN needs an argument");
  EXPECT_EQ(error_of("NAME a\nRUN x\nSETUP_ONCE y\n"), "t.test:3: SETUP_ONCE goes before the first NAME");
}
