// sonde report end to end where a check needs logic: the hot path's chain, filters that hide
// every entry. The comparisons with perf report are tests/cli/report_perf.test.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "run.hpp"

using namespace sonde::test;

namespace {

class ReportFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!have_perf()) return;
    dir_ = temp_dir() + "/report";
    run("mkdir -p " + dir_);
    std::string demo = workload("demo");
    record("perf_fp", "perf record -q -e cpu-clock:u -F 2999 -g -o @ -- " + demo + " 150000 3");
    record("sonde_fp", sonde_bin() + " record -q -e cpu-clock:u -F 2999 -g -o @ -- " + demo + " 150000 3");
  }
  static void record(const std::string& name, std::string command) {
    std::string path = dir_ + "/" + name + ".data";
    command.replace(command.find('@'), 1, path);
    auto result = run(command + " > /dev/null");
    if (result.exit_code == 0)
      files_[name] = path;
    else
      failures_[name] = result.err;
  }
  void SetUp() override {
    if (!have_perf()) GTEST_SKIP() << "perf (the oracle) is not installed";
  }
  std::string file(const std::string& name) {
    if (!files_.count(name)) ADD_FAILURE() << "recording " << name << " failed: " << failures_[name];
    return files_.count(name) ? files_[name] : "/nonexistent";
  }
  static std::string dir_;
  static std::map<std::string, std::string> files_, failures_;
};
std::string ReportFiles::dir_;
std::map<std::string, std::string> ReportFiles::files_, ReportFiles::failures_;

}  // namespace

TEST_F(ReportFiles, HotPathOfTheDemoIsFound) {
  auto ours = run(sonde_bin() + " report --no-children -g caller -i " + file("sonde_fp"));
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  // The top entry is hot_leaf, and its caller-based chain runs main -> run -> work -> hot_leaf.
  auto text = lines(ours.out);
  size_t top = 0;
  while (top < text.size() && (text[top].empty() || text[top][0] == '#')) ++top;
  ASSERT_LT(top, text.size());
  EXPECT_NE(text[top].find("[.] hot_leaf"), std::string::npos) << ours.out;
  auto main_at = ours.out.find("main\n", ours.out.find(text[top]));
  auto run_at = ours.out.find("run\n", main_at);
  auto work_at = ours.out.find("work\n", run_at);
  auto leaf_at = ours.out.find("hot_leaf\n", work_at);
  EXPECT_NE(leaf_at, std::string::npos) << ours.out;
}

TEST_F(ReportFiles, FiltersHideEntriesButKeepTotals) {
  auto ours = run(sonde_bin() + " report -i " + file("perf_fp") + " --comm nosuchcomm");
  ASSERT_EQ(ours.exit_code, 0);
  EXPECT_NE(ours.out.find("# comm: nosuchcomm"), std::string::npos) << ours.out;
  EXPECT_EQ(ours.out.find("%  "), std::string::npos) << "no entry may show:\n" << ours.out;
}
