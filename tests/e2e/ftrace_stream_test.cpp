// sonde ftrace stream end to end: events printed live, in trace-cmd report's line layout, exactly
// as many as the workload made; interrupted streams put the tracing state back.
#include <gtest/gtest.h>

#include <string>

#include "base/strings.hpp"
#include "run.hpp"

using namespace sonde;
using namespace sonde::test;

namespace {

class FtraceStream : public ::testing::Test {
 protected:
  void SetUp() override { before_ = tracing_state(); }
  void TearDown() override { EXPECT_EQ(tracing_state(), before_) << "tracing state changed"; }
  std::string before_;
};

}  // namespace

TEST_F(FtraceStream, PrintsExactlyTheWorkloadsWritesAsTraceCmdLines) {
  // The workload starts held for 700 ms in the background; sh must not exec sonde in its place,
  // or the finished workload would stay sonde's zombie and the waiter would never end.
  auto streamed = run("P=''; " + workload("writes") + " 120 1 0 0 700 & P=$!; " + sonde_bin() +
                      " ftrace stream -e syscalls:sys_enter_write -f \"common_pid == $P\" -- " +
                      wait_for_pid_command() + "; status=$?; wait; exit $status");
  ASSERT_EQ(streamed.exit_code, 0) << streamed.err;
  int writes = 0;
  for (const auto& line : lines(streamed.out)) {
    ASSERT_NE(line.find("sys_enter_write:"), std::string::npos) << line;
    // "          writes-1234  [001] 12345.678901: sys_enter_write:      fd: 0x00000003, ..."
    EXPECT_EQ(line.substr(0, 16), std::string(10, ' ') + "writes") << line;
    EXPECT_NE(line.find("count: 0x00000001"), std::string::npos) << line;
    ++writes;
  }
  EXPECT_EQ(writes, 120);
}

TEST_F(FtraceStream, SigintEndsTheStreamCleanly) {
  auto streamed =
      run(sonde_bin() +
          " ftrace stream -e sched:sched_switch > /dev/null & S=$!; sleep 0.5; kill -INT $S; wait $S");
  EXPECT_EQ(streamed.exit_code, 0) << streamed.err;
  EXPECT_EQ(streamed.err, "");
}
