// sonde script against perf script, line for line, on files recorded by perf and by sonde.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/strings.hpp"
#include "run.hpp"

using namespace sonde;
using namespace sonde::test;

namespace {

// The recordings the comparisons with computed arguments need, made once by each recorder (the
// plain option sets are in tests/cli/script_perf.test).
struct Recording {
  std::string name;
  std::string options;  // what follows "record"
};

std::vector<Recording> recordings() {
  std::string demo = workload("demo"), writes = workload("writes");
  return {
      {"fp", "-F 999 -g -- " + demo + " 40000 3"},
      {"tracepoint", "-e syscalls:sys_enter_write -- " + writes + " 20 1 2 1"},
      {"system", "-a -g -F 499 -- sleep 0.2"},
  };
}

class Script : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!have_perf()) return;
    for (const Recording& recording : recordings()) {
      for (const std::string recorder : {"perf", "sonde"}) {
        std::string path = temp_dir() + "/script-" + recorder + "-" + recording.name + ".data";
        std::string binary = recorder == "perf" ? std::string("perf") : sonde_bin();
        auto recorded = run(binary + " record -q -o " + path + " " + recording.options + " >/dev/null");
        ASSERT_EQ(recorded.exit_code, 0) << recorder << " " << recording.name << ": " << recorded.err;
        files_[recorder + "/" + recording.name] = path;
      }
    }
  }
  void SetUp() override {
    if (!have_perf()) GTEST_SKIP() << "perf (the oracle) is not installed";
  }

  static const std::string& file(const std::string& key) { return files_.at(key); }

  // Runs both on `key`'s file with `options`; they must print the same bytes, and perf must
  // have printed something (so the comparison means something).
  // `as_perf`, when given, rewrites each of sonde's lines where it differs from perf on purpose.
  static void expect_same(const std::string& key, const std::string& options, size_t min_lines = 1,
                          const std::function<std::string(std::string)>& as_perf = nullptr) {
    std::string args = " script -i " + file(key) + " " + options;
    auto theirs = run("perf" + args);
    auto ours = run(sonde_bin() + args);
    ASSERT_EQ(theirs.exit_code, 0) << "perf" << args << "\n" << theirs.err;
    ASSERT_EQ(ours.exit_code, 0) << "sonde" << args << "\n" << ours.err;
    auto want = split(theirs.out, '\n'), got = split(ours.out, '\n');
    if (as_perf)
      for (std::string& line : got) line = as_perf(line);
    EXPECT_GE(want.size(), min_lines) << "perf" << args << " printed too little to compare";
    for (size_t i = 0; i < std::min(want.size(), got.size()); ++i) {
      if (want[i] != got[i]) {
        ADD_FAILURE() << key << ": sonde" << args << "\nfirst difference at line " << i + 1
                      << "\n perf:  " << want[i] << "\n sonde: " << got[i];
        return;
      }
    }
    EXPECT_EQ(want.size(), got.size()) << key << ": sonde" << args << " printed a different number of lines";
  }

  static std::map<std::string, std::string> files_;
};

std::map<std::string, std::string> Script::files_;

// A time between the file's first and last sample, as perf prints times.
std::string middle_time(const std::string& path) {
  auto times = lines(run("perf script -F time -i " + path).out);
  if (times.empty()) return "";
  std::string text(trim(times[times.size() / 2]));
  if (!text.empty() && text.back() == ':') text.pop_back();
  return text;
}

}  // namespace

TEST_F(Script, TimeFiltersMatchPerf) {
  // The other filters and every option set without computed values are in tests/cli/script_perf.test.
  for (const std::string recorder : {"perf/", "sonde/"}) {
    std::string system = recorder + "system";
    std::string middle = middle_time(file(system));
    ASSERT_FALSE(middle.empty());
    expect_same(system, "--time " + middle + ",", 2);
  }
  expect_same("perf/system", "--time ," + middle_time(file("perf/system")), 2);
}

TEST_F(Script, PidAndTidFiltersMatchPerf) {
  // The threads file's workload runs a main thread, two more threads and a child process.
  for (const std::string recorder : {"perf/", "sonde/"}) {
    std::string key = recorder + "tracepoint";
    SCOPED_TRACE(key);
    auto pids = lines(run("perf script -F pid,tid -i " + file(key)).out);
    ASSERT_FALSE(pids.empty());
    auto ids = split(std::string(trim(pids.back())), '/');
    ASSERT_EQ(ids.size(), 2u) << pids.back();
    expect_same(key, "--pid " + std::string(trim(ids[0])), 1);
    expect_same(key, "--tid " + std::string(trim(ids[1])), 1);
  }
}

TEST_F(Script, SourceLinesOfTheHotPathMatchPerf) {
  // The demo's own frames (hot_leaf, work, run, main): within four frames of the leaf. A sample
  // in main or run reaches libc's startup, where sonde names the header the DWARF line table
  // names and perf (binutils 2.40's addr2line) the CU's file: README's deliberate difference.
  auto as_perf = [](std::string line) {
    if (size_t at = line.find("libc_start_call_main.h:"); at != std::string::npos)
      line.replace(at, std::string("libc_start_call_main.h").size(), "libc-start.c");
    return line;
  };
  for (const std::string recorder : {"perf/", "sonde/"})
    expect_same(recorder + "fp", "-F ip,sym,srcline --max-stack 4 --comm demo", 10, as_perf);
}
