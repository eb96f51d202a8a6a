// sonde diff against perf diff, the oracle, on profiles recorded by perf and by sonde: the same
// header, the same rows, and the same order of the compared column. (perf breaks exact ties by
// its tree's insertion order; the order of the values themselves must agree.)
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/strings.hpp"
#include "run.hpp"

using namespace sonde;
using namespace sonde::test;

namespace {

struct Profiles {
  std::string few, many, sonde_many;
};

const Profiles& profiles() {
  static Profiles p = [] {
    Profiles made;
    std::string dir = temp_dir();
    made.few = dir + "/diff-few.data";
    made.many = dir + "/diff-many.data";
    made.sonde_many = dir + "/diff-sonde.data";
    // The same program, its time shifted from the hot loop towards write(): the deltas move.
    run("perf record -q -o " + made.few + " " + workload("demo") + " 60000 4 >/dev/null 2>&1");
    run("perf record -q -o " + made.many + " " + workload("demo") + " 60000 3000 >/dev/null 2>&1");
    run(sonde_bin() + " record -q -g -o " + made.sonde_many + " " + workload("demo") +
        " 60000 3000 >/dev/null 2>&1");
    return made;
  }();
  return p;
}

// The text of the first compared column of every row: the Baseline column is the first
// `baseline_width` characters, the compared one the next `width`.
std::vector<std::string> compared_column(const std::vector<std::string>& rows, size_t start, size_t width) {
  std::vector<std::string> column;
  for (const auto& row : rows) column.push_back(std::string(trim(row.substr(start, width))));
  return column;
}

void expect_same_as_perf(const std::string& args, size_t start, size_t width) {
  RunResult perf = run("perf diff " + args + " 2>/dev/null");
  RunResult ours = run(sonde_bin() + " diff " + args);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  ASSERT_EQ(perf.exit_code, 0);
  std::vector<std::string> perf_header, our_header, perf_rows, our_rows;
  for (const auto& line : lines(perf.out)) (line.starts_with("#") ? perf_header : perf_rows).push_back(line);
  for (const auto& line : lines(ours.out)) (line.starts_with("#") ? our_header : our_rows).push_back(line);
  EXPECT_EQ(our_header, perf_header);
  ASSERT_GT(perf_rows.size(), 2u);
  EXPECT_EQ(compared_column(our_rows, start, width), compared_column(perf_rows, start, width)) << ours.out;
  std::sort(perf_rows.begin(), perf_rows.end());
  std::sort(our_rows.begin(), our_rows.end());
  EXPECT_EQ(our_rows, perf_rows);
}

}  // namespace

TEST(Diff, DeltaAbsOfPerfRecordingsMatchesPerfDiff) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  expect_same_as_perf(profiles().few + " " + profiles().many, 10, 11);
}

TEST(Diff, SondeRecordingComparesWithPerfs) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  // Events pair by type and config: perf's cpu-clock:pppH with sonde's cpu-clock.
  expect_same_as_perf(profiles().few + " " + profiles().sonde_many, 10, 11);
}

TEST(Diff, ComputationsAndSortKeysMatchPerfDiff) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  std::string pair = profiles().few + " " + profiles().many;
  expect_same_as_perf("-c delta " + pair, 10, 9);
  expect_same_as_perf("-c ratio " + pair, 10, 16);
  expect_same_as_perf("-c wdiff:2,3 " + pair, 10, 16);
  expect_same_as_perf("-s dso " + pair, 10, 11);
  expect_same_as_perf("-s comm,dso " + pair, 10, 11);
  expect_same_as_perf(pair + " " + profiles().sonde_many, 12, 13);
}
