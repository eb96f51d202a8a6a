// sonde record end to end, with perf 6.1 as the reader of what sonde writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "run.hpp"

using namespace sonde;
using namespace sonde::test;

namespace {

class Record : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_perf()) GTEST_SKIP() << "perf (the oracle) is not installed";
    dir_ = "/tmp/sonde-record-test-" + std::to_string(::getpid());
    run("rm -rf " + dir_ + " && mkdir -p " + dir_);
  }
  void TearDown() override { run("rm -rf " + dir_); }
  std::string file(const std::string& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

int count_lines_containing(const std::string& text, const std::string& needle) {
  int count = 0;
  for (const auto& line : lines(text))
    if (line.find(needle) != std::string::npos) ++count;
  return count;
}

}  // namespace

TEST_F(Record, PerfReadsTheFileWithoutComplaint) {
  auto recorded =
      run(sonde_bin() + " record -g -o " + file("fp.data") + " -- " + workload("demo") + " 100000 2");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  EXPECT_NE(recorded.err.find("[ sonde record: Captured and wrote "), std::string::npos) << recorded.err;
  auto report = run("perf report -i " + file("fp.data") + " --stdio");
  EXPECT_EQ(report.exit_code, 0);
  EXPECT_EQ(report.err, "") << "perf report complained";
  EXPECT_NE(report.out.find("of event 'cpu-clock'"), std::string::npos) << report.out;
  auto script = run("perf script -i " + file("fp.data"));
  EXPECT_EQ(script.exit_code, 0);
  EXPECT_EQ(script.err, "") << "perf script complained";
  EXPECT_GT(count_lines_containing(script.out, "hot_leaf"), 10);
}

TEST_F(Record, CallchainsHoldTheHotPathInOrder) {
  auto recorded = run(sonde_bin() + " record -q -F 999 -g -o " + file("hot.data") + " -- " +
                      workload("demo") + " 100000 2");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  // perf script prints a callchain leaf first: hot_leaf, work, run, main.
  auto script = run("perf script -i " + file("hot.data") + " -F ip,sym");
  ASSERT_EQ(script.exit_code, 0) << script.err;
  int chains_in_order = 0;
  std::string text = script.out;
  size_t at = 0;
  while ((at = text.find("hot_leaf", at)) != std::string::npos) {
    size_t end = text.find("\n\n", at);
    std::string chain = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    size_t work_at = chain.find(" work"), run_at = chain.find(" run"), main_at = chain.find(" main");
    if (work_at != std::string::npos && run_at != std::string::npos && main_at != std::string::npos &&
        work_at < run_at && run_at < main_at)
      ++chains_in_order;
    at = end == std::string::npos ? text.size() : end;
  }
  EXPECT_GT(chains_in_order, 10) << script.out.substr(0, 2000);
}

TEST_F(Record, OneSamplePerWriteWithPeriodOne) {
  auto recorded = run(sonde_bin() + " record -e syscalls:sys_enter_write -c 1 -o " + file("w.data") + " -- " +
                      workload("writes") + " 345");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  EXPECT_NE(recorded.err.find("(345 samples)"), std::string::npos) << recorded.err;
  auto script = run("perf script -i " + file("w.data") + " -F comm,event");
  ASSERT_EQ(script.exit_code, 0) << script.err;
  EXPECT_EQ(count_lines_containing(script.out, "sys_enter_write"), 345) << script.out.substr(0, 500);
}

TEST_F(Record, RecordsEveryThreadAndChild) {
  // 40 writes by each of the main thread, 2 threads and 2 children.
  auto recorded = run(sonde_bin() + " record -q -e syscalls:sys_enter_write -c 1 -o " + file("t.data") +
                      " -- " + workload("writes") + " 40 1 2 2");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto script = run("perf script -i " + file("t.data") + " -F pid,tid,event");
  ASSERT_EQ(script.exit_code, 0) << script.err;
  EXPECT_EQ(count_lines_containing(script.out, "sys_enter_write"), 200);
  std::vector<std::string> tids;
  for (const auto& line : lines(script.out)) {
    auto fields = split(std::string(trim(line)), ' ');
    if (!fields.empty()) tids.push_back(fields[0]);
  }
  std::sort(tids.begin(), tids.end());
  tids.erase(std::unique(tids.begin(), tids.end()), tids.end());
  EXPECT_EQ(tids.size(), 5u) << script.out.substr(0, 500);
}

TEST_F(Record, InterruptedRecordingsReadBackWhole) {
  std::string before = tracing_state();
  for (int i = 0; i < 20; ++i) {
    SCOPED_TRACE("attempt " + std::to_string(i));
    std::string data = file("int.data");
    auto recorded = run("( " + sonde_bin() + " record -q -g -o " + data + " -- " + workload("demo") +
                        " 100000000 1 >/dev/null & pid=$!; sleep 0.5; kill -INT $pid; wait $pid )");
    EXPECT_NE(recorded.exit_code, 139) << recorded.err;
    auto report = run("perf report -i " + data + " --stdio");
    ASSERT_EQ(report.exit_code, 0) << report.err;
    EXPECT_EQ(report.err, "");
    EXPECT_NE(report.out.find("# Samples: "), std::string::npos) << report.out.substr(0, 500);
  }
  EXPECT_EQ(tracing_state(), before);
}

TEST_F(Record, BadInputFailsBeforeTheWorkloadRuns) {
  auto unwritable =
      run(sonde_bin() + " record -o /nonexistent/dir/perf.data -- " + workload("writes") + " 1");
  EXPECT_NE(unwritable.exit_code, 0);
  EXPECT_NE(unwritable.err.find("/nonexistent/dir/perf.data"), std::string::npos) << unwritable.err;
  EXPECT_EQ(lines(unwritable.err).size(), 1u) << unwritable.err;

  auto bad_event = run("cd " + dir_ + " && " + sonde_bin() + " record -e nosuchevent -- true");
  EXPECT_EQ(bad_event.exit_code, 129);
  EXPECT_FALSE(path_exists(file("perf.data")));

  auto missing = run("cd " + dir_ + " && " + sonde_bin() + " record -q -- /nonexistent/command");
  EXPECT_EQ(missing.exit_code, 127) << missing.err;
  EXPECT_NE(missing.err.find("command not found"), std::string::npos) << missing.err;
  EXPECT_FALSE(path_exists(file("perf.data"))) << "a half-written perf.data was left";
}

TEST_F(Record, KeepsThePreviousFileAsOld) {
  std::string data = file("perf.data");
  ASSERT_EQ(run(sonde_bin() + " record -q -o " + data + " -- true").exit_code, 0);
  ASSERT_EQ(run(sonde_bin() + " record -q -o " + data + " -- true").exit_code, 0);
  EXPECT_TRUE(path_exists(data + ".old"));
  auto mode = run("stat -c %a " + data);
  EXPECT_EQ(trim(mode.out), "600");
}

TEST_F(Record, PerfUnwindsDwarfCallGraphs) {
  auto recorded = run(sonde_bin() + " record -q --call-graph dwarf -o " + file("dwarf.data") + " -- " +
                      workload("demo") + " 50000 2");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto report = run("perf report -i " + file("dwarf.data") + " --stdio --no-children");
  ASSERT_EQ(report.exit_code, 0);
  EXPECT_EQ(report.err, "");
  // Unwound from the saved registers and stack: the frameless caller 'work' is there too.
  size_t leaf = report.out.find("---hot_leaf");
  ASSERT_NE(leaf, std::string::npos) << report.out.substr(0, 1500);
  std::string chain = report.out.substr(leaf, 200);
  EXPECT_LT(chain.find("work"), chain.find("run")) << chain;
  EXPECT_LT(chain.find("run"), chain.find("main")) << chain;
}

TEST_F(Record, SeveralEventsSystemWideWithTracepointFields) {
  auto recorded = run(sonde_bin() + " record -q -a -e cpu-clock,page-faults -e sched:sched_switch -o " +
                      file("a.data") + " -- sleep 0.2");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto report = run("perf report -i " + file("a.data") + " --stdio");
  ASSERT_EQ(report.exit_code, 0);
  EXPECT_EQ(report.err, "");
  for (const char* event :
       {"of event 'cpu-clock'", "of event 'page-faults'", "of event 'sched:sched_switch'"})
    EXPECT_NE(report.out.find(event), std::string::npos) << event;
  auto script = run("perf script -i " + file("a.data"));
  ASSERT_EQ(script.exit_code, 0);
  EXPECT_EQ(script.err, "");
  // The payload is formatted from the file's tracing data.
  EXPECT_NE(script.out.find("prev_comm="), std::string::npos) << script.out.substr(0, 1000);
  EXPECT_NE(script.out.find("==> next_comm="), std::string::npos);
}

TEST_F(Record, PipeModeFeedsPerfReport) {
  auto piped =
      run(sonde_bin() + " record -q -o - -- " + workload("demo") + " 50000 2 | perf report -i - --stdio");
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_NE(piped.out.find("hot_leaf"), std::string::npos) << piped.out.substr(0, 1000);
}

TEST_F(Record, CompressedRecordsReadByPerfAndSmaller) {
  std::string plain = file("plain.data"), packed = file("z.data");
  ASSERT_EQ(
      run(sonde_bin() + " record -q -g -o " + plain + " -- " + workload("demo") + " 100000 2").exit_code, 0);
  auto recorded =
      run(sonde_bin() + " record -q -z -g -o " + packed + " -- " + workload("demo") + " 100000 2");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto header = run("perf report -i " + packed + " --stdio --header");
  ASSERT_EQ(header.exit_code, 0);
  EXPECT_EQ(header.err, "");
  EXPECT_NE(header.out.find("# compressed : Zstd, level = 1"), std::string::npos)
      << header.out.substr(0, 2000);
  EXPECT_NE(header.out.find("hot_leaf"), std::string::npos);
  auto size_of = [](const std::string& path) { return std::stol(run("stat -c %s " + path).out); };
  EXPECT_LT(size_of(packed) * 3, size_of(plain));
}

TEST_F(Record, CgroupFilterKeepsOnlyItsTasks) {
  auto root = run("awk '$3 == \"cgroup2\" {print $2; exit}' /proc/mounts");
  std::string mount(trim(root.out));
  if (mount.empty()) GTEST_SKIP() << "no cgroup v2 hierarchy mounted";
  std::string name = "sonde-test-" + std::to_string(::getpid());
  std::string cgroup = mount + "/" + name;
  ASSERT_EQ(run("mkdir " + cgroup).exit_code, 0);
  // A workload that joins the cgroup, waits for the recording to start, then writes 9 times;
  // other writes on the machine fall outside the filter.
  auto recorded = run("( sh -c 'echo $$ > " + cgroup + "/cgroup.procs; sleep 0.3; exec " +
                      workload("writes") + " 9' & " + sonde_bin() + " record -q -a -G " + name +
                      " -e syscalls:sys_enter_write -c 1 -o " + file("cg.data") + " -- sleep 0.8; wait )");
  EXPECT_EQ(recorded.exit_code, 0) << recorded.err;
  auto script = run("perf script -i " + file("cg.data") + " -F comm");
  run("rmdir " + cgroup);
  ASSERT_EQ(script.exit_code, 0) << script.err;
  std::vector<std::string> comms;
  for (const auto& line : lines(script.out)) comms.emplace_back(trim(line));
  EXPECT_EQ(comms, std::vector<std::string>(9, "writes")) << script.out;
}

TEST_F(Record, FilterKeepsOnlyMatchingTracepointSamples) {
  // 5 writes of 4321 bytes pass the filter, 7 of 1 byte do not.
  auto recorded =
      run(sonde_bin() + " record -q -e syscalls:sys_enter_write --filter 'count == 4321' -c 1 -o " +
          file("f.data") + " -- sh -c '" + workload("writes") + " 5 4321; " + workload("writes") + " 7 1'");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto script = run("perf script -i " + file("f.data"));
  EXPECT_EQ(count_lines_containing(script.out, "count: 0x000010e1"), 5) << script.out;
  EXPECT_EQ(lines(script.out).size(), 5u);
  auto refused = run(sonde_bin() + " record -q -e syscalls:sys_enter_write --filter 'bogus == 1' -o " +
                     file("bad.data") + " -- true");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("refused the filter 'bogus == 1'"), std::string::npos) << refused.err;
  EXPECT_FALSE(path_exists(file("bad.data")));
}

TEST_F(Record, BuildIdsOfExactlyTheDsosWithSamples) {
  std::string data = file("b.data");
  ASSERT_EQ(run(sonde_bin() + " record -q -g -o " + data + " -- " + workload("demo") + " 100000 2").exit_code,
            0);
  // The DSOs perf attributes samples to...
  auto report = run("perf report -i " + data + " --stdio --sort dso -q --no-children -g none");
  std::set<std::string> sampled;
  for (const auto& line : lines(report.out)) {
    auto fields = split(std::string(trim(line)), ' ');
    if (fields.empty() || fields.front().find('%') == std::string::npos) continue;  // rows only
    std::string dso = fields.back();
    if (dso != "[vdso]" && dso != "[unknown]") sampled.insert(dso);
  }
  // ... are exactly those with a build-id in the file (perf shows short names, the list full paths).
  auto listed = run("perf buildid-list -i " + data);
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  std::set<std::string> with_build_id;
  std::string demo_id;
  for (const auto& line : lines(listed.out)) {
    auto fields = split(line, ' ');
    ASSERT_EQ(fields.size(), 2u) << line;
    std::string name = fields[1].substr(fields[1].rfind('/') + 1);
    with_build_id.insert(name);
    if (name == "demo") demo_id = fields[0];
  }
  EXPECT_EQ(with_build_id, sampled) << listed.out << "\n" << report.out;
  auto readelf = run("readelf -n " + workload("demo") + " | awk '/Build ID/ {print $3}'");
  EXPECT_EQ(demo_id, std::string(trim(readelf.out)));
}

TEST_F(Record, AWorkloadThatDiesStillLeavesAReadableFile) {
  std::string data = file("killed.data");
  auto recorded = run(sonde_bin() + " record -q -g -o " + data + " -- sh -c '" + workload("demo") +
                      " 50000 1 >/dev/null; kill -KILL $$'");
  EXPECT_EQ(recorded.exit_code, 128 + 9) << recorded.err;  // the workload's fate, as a shell reports it
  auto report = run("perf report -i " + data + " --stdio");
  EXPECT_EQ(report.exit_code, 0);
  EXPECT_EQ(report.err, "");
  EXPECT_NE(report.out.find("hot_leaf"), std::string::npos);
}

TEST_F(Record, UnknownProcessIsAClearError) {
  auto result = run("cd " + dir_ + " && " + sonde_bin() + " record -p 4000000");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("no process with id 4000000"), std::string::npos) << result.err;
  EXPECT_EQ(lines(result.err).size(), 1u) << result.err;
  EXPECT_FALSE(path_exists(file("perf.data")));
}

// Without the hardware PMU, a hardware event other than cycles is refused in perf's words; with
// it, both record.
TEST_F(Record, HardwareEventsTheMachineLacksAreRefusedAsPerfRefusesThem) {
  if (!have_perf()) GTEST_SKIP() << "perf (the oracle) is not installed";
  auto theirs = run("cd " + dir_ + " && perf record -q -e instructions -o perf-instructions.data -- true");
  auto ours =
      run("cd " + dir_ + " && " + sonde_bin() + " record -q -e instructions -o instructions.data -- true");
  if (theirs.exit_code == 0) {
    EXPECT_EQ(ours.exit_code, 0) << ours.err;
    return;
  }
  ASSERT_NE(theirs.err.find("The instructions event is not supported."), std::string::npos) << theirs.err;
  EXPECT_EQ(ours.exit_code, 1);
  EXPECT_EQ(ours.err, "sonde record: The instructions event is not supported.\n");
}
