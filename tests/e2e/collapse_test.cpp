// sonde collapse as a user runs it: on perf script text from stdin or a file, against the
// folded output stackcollapse-perf.pl wrote for the same fixtures, and on a fresh perf profile.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "flamegraph_fixtures.hpp"
#include "run.hpp"

namespace sonde::test {
namespace {

TEST(CollapseCommand, FoldsEveryPeriodOfAFreshProfile) {
  if (!have_perf()) GTEST_SKIP() << "perf (the oracle) is not installed";
  std::string data = temp_dir() + "/collapse-demo.data", text = temp_dir() + "/collapse-demo.txt";
  auto recorded =
      run("perf record -q -g -F 999 -o " + data + " " + workload("demo") + " 200000 10 >/dev/null");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  ASSERT_EQ(run("perf script -i " + data + " > " + text).exit_code, 0);
  // Every sample header ends in "PERIOD cpu-clock:...:"; the folded counts must add up to them.
  uint64_t periods = 0;
  std::istringstream script(slurp(text));
  for (std::string line; std::getline(script, line);) {
    if (line.empty() || line[0] == '\t' || line[0] == ' ') continue;
    std::istringstream fields(line);
    std::vector<std::string> words;
    for (std::string word; fields >> word;) words.push_back(word);
    periods += std::stoull(words[words.size() - 2]);
  }
  auto folded = run(sonde_bin() + " collapse " + text);
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  uint64_t total = 0;
  for (const auto& line : lines(folded.out)) total += std::stoull(line.substr(line.rfind(' ') + 1));
  EXPECT_EQ(total, periods);
  EXPECT_NE(folded.out.find("demo;__libc_start_call_main;main;run;work;hot_leaf "), std::string::npos)
      << folded.out;
}

}  // namespace
}  // namespace sonde::test
