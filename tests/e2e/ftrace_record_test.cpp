// sonde ftrace record end to end: exact event counts from a workload with a known number of
// write() calls, triggers, the function tracer's refusal under lockdown, the blk tracer on a loop
// device (and sonde's report of it against trace-cmd's), interruption; trace-cmd report (the
// peer) reads every file sonde writes. Every test checks that the machine's tracing state is what
// it was before.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "run.hpp"

using namespace sonde;
using namespace sonde::test;

namespace {

constexpr const char* kRefusal =
    "sonde ftrace: function tracer refused by the kernel (lockdown?): EPERM on current_tracer";

// Ends a shell command line that started the workload in the background: without a command
// after it, sh would exec sonde in its own place, making the workload sonde's child, left a zombie
// that the waiter (wait_for_pid_command) waits for forever.
const std::string kReapBackground = "; status=$?; wait; exit $status";

int count_lines_containing(const std::string& text, const std::string& needle) {
  int count = 0;
  for (const auto& line : lines(text))
    if (line.find(needle) != std::string::npos) ++count;
  return count;
}

bool have_trace_cmd() { return run("trace-cmd -h >/dev/null 2>&1; command -v trace-cmd").exit_code == 0; }

class FtraceRecord : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_trace_cmd()) GTEST_SKIP() << "trace-cmd (the reader of trace.dat files) is not installed";
    before_ = tracing_state();
  }
  void TearDown() override {
    if (!before_.empty()) {
      EXPECT_EQ(tracing_state(), before_) << "tracing state changed";
    }
  }
  static std::string file(const std::string& name) { return temp_dir() + "/" + name; }
  // Runs `sonde ftrace record ARGS` around a `writes N` workload started first (held for a
  // moment so tracing is set up when it writes), whose pid replaces every "$P" in ARGS; the
  // record lasts until the workload ends.
  static RunResult record_writes(int writes, const std::string& args, const std::string& output) {
    return run("P=''; " + workload("writes") + " " + std::to_string(writes) + " 1 0 0 700 & P=$!; " +
               sonde_bin() + " ftrace record " + args + " -o " + output + " -- " + wait_for_pid_command() +
               kReapBackground);
  }
  static RunResult trace_cmd_report(const std::string& path) { return run("trace-cmd report " + path); }
  std::string before_;
};

}  // namespace

TEST_F(FtraceRecord, FilterOnThePidKeepsExactlyTheWorkloadsWrites) {
  std::string out = file("filter.dat");
  auto recorded = record_writes(300, "-e syscalls:sys_enter_write -f \"common_pid == $P\"", out);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  EXPECT_NE(recorded.err.find("sonde ftrace record: 300 events in "), std::string::npos) << recorded.err;
  EXPECT_NE(recorded.err.find("lost 0 events"), std::string::npos) << recorded.err;
  auto report = trace_cmd_report(out);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(count_lines_containing(report.out, "sys_enter_write:"), 300) << report.out;
  EXPECT_EQ(count_lines_containing(report.out, "writes-"), 300);
  EXPECT_EQ(count_lines_containing(report.out, "count: 0x00000001"), 300);
}

TEST_F(FtraceRecord, PidOptionKeepsExactlyTheWorkloadsWrites) {
  std::string out = file("pid.dat");
  auto recorded = record_writes(250, "-P $P -e syscalls:sys_enter_write", out);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto report = trace_cmd_report(out);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(count_lines_containing(report.out, "sys_enter_write:"), 250) << report.out;
}

TEST_F(FtraceRecord, PidWithChildrenFollowsForkedWriters) {
  // writes 40 1 0 2: the main process and two forked children write 40 times each.
  std::string out = file("children.dat");
  auto recorded = run("P=''; " + workload("writes") + " 40 1 0 2 700 & P=$!; " + sonde_bin() +
                      " ftrace record -P $P -c -e syscalls:sys_enter_write -o " + out + " -- " +
                      wait_for_pid_command() + kReapBackground);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto report = trace_cmd_report(out);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(count_lines_containing(report.out, "sys_enter_write:"), 120) << report.out;
}

TEST_F(FtraceRecord, TraceoffTriggerStopsTheTraceAfterTheFirstWrite) {
  // The trigger belongs to the -e before it (sys_exit_write): the first write's entry and exit
  // are recorded, then tracing is off.
  std::string out = file("traceoff.dat");
  auto recorded = record_writes(
      100,
      "-e syscalls:sys_enter_write -f \"common_pid == $P\" "
      "-e syscalls:sys_exit_write -f \"common_pid == $P\" -R \"traceoff:1 if common_pid == $P\"",
      out);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto report = trace_cmd_report(out);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(count_lines_containing(report.out, "sys_enter_write:"), 1) << report.out;
  EXPECT_EQ(count_lines_containing(report.out, "sys_exit_write:"), 1) << report.out;
}

TEST_F(FtraceRecord, FunctionTracerIsRefusedInOneLineAndLeavesNothingChanged) {
  std::string out = file("function.dat");
  auto recorded = run(sonde_bin() + " ftrace record -p function -l 'vfs_*' -o " + out + " -- true");
  if (recorded.exit_code == 0) {
    // A kernel that allows the function tracer: only vfs_ functions, each with its parent.
    auto report = trace_cmd_report(out);
    ASSERT_EQ(report.exit_code, 0) << report.err;
    int functions = count_lines_containing(report.out, "function:");
    EXPECT_GT(functions, 0);
    for (const auto& line : lines(report.out)) {
      if (line.find("function:") == std::string::npos) continue;
      auto payload = std::string(trim(line.substr(line.find("function:") + 9)));
      EXPECT_TRUE(payload.starts_with("vfs_")) << line;
      EXPECT_NE(payload.find(" <-- "), std::string::npos) << line;
    }
    return;
  }
  EXPECT_EQ(recorded.err, std::string(kRefusal) + "\n");
  EXPECT_EQ(recorded.exit_code, 1);
  EXPECT_FALSE(path_exists(out));
}

TEST_F(FtraceRecord, RefusedFunctionTracerStillRecordsTheEvents) {
  std::string out = file("function-events.dat");
  auto recorded =
      record_writes(50, "-p function -l 'vfs_*' -e syscalls:sys_enter_write -f \"common_pid == $P\"", out);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto report = trace_cmd_report(out);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(count_lines_containing(report.out, "sys_enter_write:"), 50) << report.out;
  if (recorded.err.find(kRefusal) == std::string::npos)
    GTEST_SKIP() << "this kernel allows the function tracer; the refusal path is not exercised";
  EXPECT_EQ(count_lines_containing(recorded.err, "refused"), 1) << recorded.err;
}

TEST_F(FtraceRecord, BlkTracerRecordsTheTestsOwnIoOnALoopDevice) {
  if (run("grep -qw blk /sys/kernel/tracing/available_tracers").exit_code != 0)
    GTEST_SKIP() << "this kernel has no blk tracer (CONFIG_BLK_DEV_IO_TRACE)";
  std::string image = file("disk.img");
  ASSERT_EQ(run("truncate -s 4M " + image).exit_code, 0);
  auto attached = run("losetup -f --show " + image);
  if (attached.exit_code != 0) GTEST_SKIP() << "cannot set up a loop device: " << attached.err;
  std::string device = std::string(trim(attached.out));
  std::string out = file("blk.dat");
  auto recorded = run(sonde_bin() + " ftrace record -p blk --device " + device + " -o " + out +
                      " -- dd if=/dev/zero of=" + device + " bs=4k count=8 oflag=direct");
  auto stat = run("stat -c '%t %T' " + device);  // major and minor in hex
  run("losetup -d " + device);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto numbers = split(std::string(trim(stat.out)), ' ');
  ASSERT_EQ(numbers.size(), 2u) << stat.out;
  // The kernel's dev_t: major << 20 | minor.
  unsigned long dev = (std::stoul(numbers[0], nullptr, 16) << 20) | std::stoul(numbers[1], nullptr, 16);
  auto report = run("trace-cmd report -R " + out);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  int dd_on_device = 0, writes_of_4k = 0;
  for (const auto& line : lines(report.out)) {
    if (line.find("blktrace:") == std::string::npos ||
        line.find("device=" + std::to_string(dev) + " ") == std::string::npos)
      continue;
    if (line.find("dd-") != std::string::npos) ++dd_on_device;
    if (line.find("bytes=4096 ") != std::string::npos) ++writes_of_4k;
  }
  EXPECT_GE(dd_on_device, 8) << report.out;
  EXPECT_GE(writes_of_4k, 8) << report.out;

  // sonde's report prints the blk records as trace-cmd report does ("blktrace: <pid>", through
  // the same made-up format), byte for byte, also with a filter on one of the made-up fields.
  for (std::string filter : {"", " -F 'blktrace: bytes == 4096'"}) {
    auto theirs = run("trace-cmd report" + filter + " " + out);
    ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
    auto ours = run(sonde_bin() + " ftrace report" + filter + " -i " + out);
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    EXPECT_GE(count_lines_containing(ours.out, "blktrace: "), filter.empty() ? dd_on_device : writes_of_4k)
        << ours.out;
    EXPECT_EQ(ours.out, theirs.out) << "filter:" << filter;
  }
}

TEST_F(FtraceRecord, SigintMidRecordLeavesAValidFileAndTheStateAsBefore) {
  std::string out = file("sigint.dat");
  auto recorded = run(sonde_bin() + " ftrace record -e sched -e syscalls:sys_enter_write -o " + out +
                      " & R=$!; sleep 0.5; kill -INT $R; wait $R");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  EXPECT_NE(recorded.err.find("sonde ftrace record: "), std::string::npos) << recorded.err;
  auto report = trace_cmd_report(out);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_GT(count_lines_containing(report.out, "sched_"), 0) << report.out;
}

TEST_F(FtraceRecord, SigtermStopsTheCommandAndFinishesTheFile) {
  std::string out = file("sigterm.dat");
  auto recorded = run(sonde_bin() + " ftrace record -e sched:sched_switch -o " + out +
                      " -- sleep 30 & R=$!; sleep 0.5; kill -TERM $R; wait $R");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto report = trace_cmd_report(out);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_GT(count_lines_containing(report.out, "sched_switch:"), 0);
}

TEST_F(FtraceRecord, BadRequestsAreOneLineErrors) {
  struct Case {
    std::string args;
    std::string expected;
  };
  const Case cases[] = {
      {"-e no_such_event", "sonde ftrace: no trace event matches 'no_such_event'"},
      {"-f 'common_pid == 1' -e sched", "-f applies to the -e before it"},
      {"-e sched:sched_switch -f 'no_such_field == 1'",
       "sonde ftrace: filter 'no_such_field == 1' rejected for sched:sched_switch: parse_error: Field not "
       "found"},
      {"-e sched -f 'no_such_field == 1'", "sonde ftrace: filter 'no_such_field == 1' rejected for sched:"},
      {"-e sched:sched_switch -R 'no_such_trigger'",
       "sonde ftrace: trigger 'no_such_trigger' rejected for sched:sched_switch"},
      {"-p no_such_tracer", "sonde ftrace: the no_such_tracer tracer is not available on this kernel"},
      {"-e sched -C no_such_clock", "sonde ftrace: unknown trace clock 'no_such_clock'"},
      {"-p blk", "-p blk traces the block devices named with --device"},
      {"-e sched -P 4194000", "sonde ftrace: no process with id 4194000"},
      {"-e sched -P abc", "sonde ftrace: bad process id"},
      {"", "nothing to trace"},
  };
  for (const auto& c : cases) {
    auto result = run(sonde_bin() + " ftrace record " + c.args + " -o " + file("bad.dat") + " -- true");
    EXPECT_NE(result.exit_code, 0) << c.args;
    EXPECT_EQ(lines(result.err).size(), 1u) << c.args << ": " << result.err;
    EXPECT_NE(result.err.find(c.expected), std::string::npos) << c.args << ": " << result.err;
  }
}

TEST_F(FtraceRecord, MissingFacilitiesAreNamed) {
  auto graph = run(sonde_bin() + " ftrace record -g vfs_read -o " + file("g.dat") + " -- true");
  if (graph.exit_code != 0) {
    EXPECT_EQ(lines(graph.err).size(), 1u) << graph.err;
    EXPECT_NE(graph.err.find("function_graph"), std::string::npos) << graph.err;
  }
  if (path_exists("/sys/kernel/tracing/events/sched/sched_switch/hist")) return;
  auto hist = run(sonde_bin() + " ftrace record -e sched:sched_switch -R 'hist:keys=prev_pid' -o " +
                  file("h.dat") + " -- true");
  EXPECT_NE(hist.exit_code, 0);
  EXPECT_EQ(lines(hist.err).size(), 1u) << hist.err;
  EXPECT_NE(hist.err.find("hist triggers are not available on this kernel"), std::string::npos) << hist.err;
}
