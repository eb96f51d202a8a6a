// sonde ftrace list, show, stat, marker, snapshot and reset end to end, against what tracefs
// itself says.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "run.hpp"

using namespace sonde;
using namespace sonde::test;

namespace {

const std::string kTracefs = "/sys/kernel/tracing";

class FtraceCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    run(sonde_bin() + " ftrace stat >/dev/null");  // mounts tracefs when it is not
    before_ = tracing_state();
  }
  void TearDown() override { EXPECT_EQ(tracing_state(), before_) << "tracing state changed"; }
  std::string before_;
};

}  // namespace

TEST_F(FtraceCommands, ListShowsWhatTracefsLists) {
  auto tracers = run(sonde_bin() + " ftrace list -t");
  ASSERT_EQ(tracers.exit_code, 0) << tracers.err;
  auto available = read_file(kTracefs + "/available_tracers");
  ASSERT_TRUE(available);
  std::vector<std::string> expected;
  for (auto& word : split(std::string(trim(*available)), ' ')) expected.push_back(word);
  EXPECT_EQ(lines(tracers.out), expected);

  auto events = run(sonde_bin() + " ftrace list -e 'sched:sched_switch'");
  ASSERT_EQ(events.exit_code, 0) << events.err;
  EXPECT_EQ(events.out, "sched:sched_switch\n");
  auto system = run(sonde_bin() + " ftrace list -e sched");
  auto names = list_directory(kTracefs + "/events/sched");
  ASSERT_TRUE(names);
  size_t event_dirs = 0;
  for (const auto& name : *names) event_dirs += is_directory(kTracefs + "/events/sched/" + name);
  EXPECT_EQ(lines(system.out).size(), event_dirs);

  auto options = run(sonde_bin() + " ftrace list -o 'stacktrace'");
  ASSERT_EQ(options.exit_code, 0);
  EXPECT_TRUE(options.out == "stacktrace\n" || options.out == "nostacktrace\n") << options.out;
}

TEST_F(FtraceCommands, ListFunctionsSaysWhyWhenTheKernelRefuses) {
  auto functions = run(sonde_bin() + " ftrace list -f 'vfs_*'");
  if (functions.exit_code == 0) {
    for (const auto& line : lines(functions.out)) EXPECT_TRUE(line.starts_with("vfs_")) << line;
    return;
  }
  EXPECT_EQ(lines(functions.err).size(), 1u) << functions.err;
  EXPECT_NE(functions.err.find("available_filter_functions"), std::string::npos) << functions.err;
}

TEST_F(FtraceCommands, ShowAndStatDescribeTheTopLevel) {
  auto show = run(sonde_bin() + " ftrace show");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  auto tracer = read_file(kTracefs + "/current_tracer");
  ASSERT_TRUE(tracer);
  EXPECT_NE(show.out.find("top level:\n  tracer          " + std::string(trim(*tracer)) + "\n"),
            std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("  tracing_on      "), std::string::npos);
  auto stat = run(sonde_bin() + " ftrace stat");
  ASSERT_EQ(stat.exit_code, 0) << stat.err;
  auto cpus = list_directory(kTracefs + "/per_cpu");
  ASSERT_TRUE(cpus);
  EXPECT_EQ(lines(stat.out).size(), cpus->size() + 2) << stat.out;
  EXPECT_NE(stat.out.find("overrun"), std::string::npos);
}

TEST_F(FtraceCommands, MarkerWritesIntoTheChosenInstance) {
  std::string name = "sonde-test-marker-" + std::to_string(::getpid());
  std::string dir = kTracefs + "/instances/" + name;
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  auto marked = run(sonde_bin() + " ftrace marker -B " + name + " hello from the test");
  auto trace = read_file(dir + "/trace");
  auto show = run(sonde_bin() + " ftrace show");
  ::rmdir(dir.c_str());
  ASSERT_EQ(marked.exit_code, 0) << marked.err;
  ASSERT_TRUE(trace);
  EXPECT_NE(trace->find("hello from the test"), std::string::npos) << *trace;
  EXPECT_NE(show.out.find("instance " + name + ":"), std::string::npos) << show.out;
}

TEST_F(FtraceCommands, SnapshotIsTakenOrNamedAsMissing) {
  auto snapshot = run(sonde_bin() + " ftrace snapshot");
  if (path_exists(kTracefs + "/snapshot")) {
    EXPECT_EQ(snapshot.exit_code, 0) << snapshot.err;
    return;
  }
  EXPECT_NE(snapshot.exit_code, 0);
  EXPECT_EQ(snapshot.err,
            "sonde ftrace snapshot: snapshots are not available on this kernel (CONFIG_TRACER_SNAPSHOT)\n");
}

TEST_F(FtraceCommands, ResetRemovesAnInstanceSondeLeftBehind) {
  // pid_max caps real pids well below this, so no process has it.
  std::string name = "sonde-2147483600";
  std::string dir = kTracefs + "/instances/" + name;
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ASSERT_TRUE(write_file(dir + "/events/sched/sched_switch/enable", "1"));
  // A reset also turns the top level's tracing back on (the kernel's default); the machine may
  // have started with it off, and the test leaves it as it found it.
  auto tracing_on = read_file(kTracefs + "/tracing_on");
  auto reset = run(sonde_bin() + " ftrace reset");
  if (tracing_on) (void)write_file(kTracefs + "/tracing_on", std::string(trim(*tracing_on)));
  bool left = is_directory(dir);
  if (left) ::rmdir(dir.c_str());
  EXPECT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_FALSE(left);
  EXPECT_NE(reset.err.find("removed instance " + name), std::string::npos) << reset.err;
}

TEST_F(FtraceCommands, UnknownSubcommandAndInstanceAreOneLineErrors) {
  auto unknown = run(sonde_bin() + " ftrace frobnicate");
  EXPECT_EQ(unknown.exit_code, 129);
  EXPECT_EQ(lines(unknown.err).size(), 1u);
  auto missing = run(sonde_bin() + " ftrace stat -B no-such-instance");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_EQ(lines(missing.err).size(), 1u) << missing.err;
  EXPECT_NE(missing.err.find("no tracefs instance 'no-such-instance'"), std::string::npos) << missing.err;
}
