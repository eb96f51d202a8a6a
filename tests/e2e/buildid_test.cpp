// sonde buildid-list and buildid-cache against perf 6.1 on the same files and layouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "run.hpp"

using namespace sonde::test;

namespace {

class Buildid : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_perf()) GTEST_SKIP() << "perf (the oracle) is not installed";
    dir_ = temp_dir() + "/buildid-" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    run("rm -rf " + dir_ + " && mkdir -p " + dir_);
  }
  void TearDown() override { run("rm -rf " + dir_); }
  std::string dir_;
};

// Every path under `root` with its kind and, for links, the target: the layout to compare.
std::string layout(const std::string& root) {
  return run("cd " + shell_quote(root) + " && find . -mindepth 1 -printf '%y %p %l\\n' | sort").out;
}

}  // namespace

TEST_F(Buildid, ListMatchesPerfOnAFileSondeRecorded) {
  auto recorded =
      run(sonde_bin() + " record -q -o " + dir_ + "/sonde.data -- " + workload("demo") + " 20000 2");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto ours = run(sonde_bin() + " buildid-list -i " + dir_ + "/sonde.data");
  auto perfs = run("perf buildid-list -i " + dir_ + "/sonde.data");
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(ours.out, perfs.out);
  EXPECT_NE(ours.out.find(workload("demo")), std::string::npos) << ours.out;
}

TEST_F(Buildid, ListMatchesPerfOnAFilePerfRecorded) {
  // --no-buildid-cache keeps perf record out of the user's ~/.debug.
  auto recorded =
      run("perf record -q --no-buildid-cache -o " + dir_ + "/perf.data -- " + workload("demo") + " 20000 2");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto ours = run(sonde_bin() + " buildid-list -i " + dir_ + "/perf.data");
  auto perfs = run("perf buildid-list -i " + dir_ + "/perf.data");
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(ours.out, perfs.out);
  EXPECT_NE(ours.out.find(workload("demo")), std::string::npos) << ours.out;
  // -H: only the DSOs samples hit (perf lists [vdso] without hits, -H drops it).
  auto our_hits = run(sonde_bin() + " buildid-list -H -i " + dir_ + "/perf.data");
  EXPECT_EQ(our_hits.out, run("perf buildid-list -H -i " + dir_ + "/perf.data").out);
  EXPECT_NE(our_hits.out.find(workload("demo")), std::string::npos) << our_hits.out;
}

TEST_F(Buildid, ListMatchesPerfOnPipeStreams) {
  // A stream has no BUILD_ID section: perf lists the DSOs samples hit, with blank build-ids
  // unless the records carried them.
  for (const std::string& recorder :
       {std::string("perf record -q --no-buildid-cache"), sonde_bin() + " record -q"}) {
    std::string data = dir_ + "/pipe.data";
    auto recorded = run(recorder + " -o - -- " + workload("demo") + " 20000 2 2>/dev/null > " + data);
    ASSERT_EQ(recorded.exit_code, 0) << recorder;
    auto ours = run(sonde_bin() + " buildid-list -i - < " + data);
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    EXPECT_EQ(ours.out, run("perf buildid-list -i - < " + data).out) << recorder;
    EXPECT_NE(ours.out.find(workload("demo")), std::string::npos) << ours.out;
    EXPECT_EQ(run(sonde_bin() + " buildid-list -i " + data).out, run("perf buildid-list -i " + data).out);
  }
}

TEST_F(Buildid, ListOfAnElfFileAndBadInput) {
  auto ours = run(sonde_bin() + " buildid-list -i " + workload("demo"));
  EXPECT_EQ(ours.out, run("perf buildid-list -i " + workload("demo")).out);
  auto kernel = run(sonde_bin() + " buildid-list -k");
  EXPECT_EQ(kernel.out, run("perf buildid-list -k").out);
  auto missing = run(sonde_bin() + " buildid-list -i " + dir_ + "/nothing.data");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_EQ(lines(missing.err).size(), 1u) << missing.err;
  EXPECT_NE(missing.err.find("nothing.data"), std::string::npos);
}

TEST_F(Buildid, CacheAddLaysFilesOutAsPerfDoes) {
  run("mkdir -p " + dir_ + "/ours " + dir_ + "/perfs");
  std::string binary = workload("inlined");
  auto ours = run(sonde_bin() + " buildid-cache --buildid-dir " + dir_ + "/ours/.debug --add " + binary);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto perfs = run("HOME=" + dir_ + "/perfs perf buildid-cache --add " + binary);
  ASSERT_EQ(perfs.exit_code, 0) << perfs.err;
  std::string our_layout = layout(dir_ + "/ours/.debug");
  EXPECT_EQ(our_layout, layout(dir_ + "/perfs/.debug"));
  EXPECT_NE(our_layout.find("/elf"), std::string::npos) << our_layout;

  // perf lists what sonde cached, and sonde what perf cached.
  EXPECT_EQ(run("HOME=" + dir_ + "/ours perf buildid-cache --list").out,
            run(sonde_bin() + " buildid-cache --buildid-dir " + dir_ + "/perfs/.debug --list").out);

  // --remove drops the entry and its link, as perf's does.
  ours = run(sonde_bin() + " buildid-cache --buildid-dir " + dir_ + "/ours/.debug --remove " + binary);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  perfs = run("HOME=" + dir_ + "/perfs perf buildid-cache --remove " + binary);
  EXPECT_EQ(layout(dir_ + "/ours/.debug"), layout(dir_ + "/perfs/.debug"));
  EXPECT_EQ(run(sonde_bin() + " buildid-cache --buildid-dir " + dir_ + "/ours/.debug --list").out, "");
}

TEST_F(Buildid, CacheAddOfAMissingFileSaysSo) {
  auto ours =
      run(sonde_bin() + " buildid-cache --buildid-dir " + dir_ + "/.debug --add " + dir_ + "/nothing");
  EXPECT_EQ(lines(ours.err).size(), 1u) << ours.err;
  EXPECT_NE(ours.err.find("Couldn't add " + dir_ + "/nothing"), std::string::npos) << ours.err;
}
