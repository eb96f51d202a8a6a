// The live trace's split lines when the kernel's two records for one call race: the interrupted
// entry and the exit's RESUMED flag, each of which can arrive without the other or late.
#include <gtest/gtest.h>

#include "analysis/trace/split_call_lines.hpp"

using namespace sonde;
using analysis::SplitCallLines;

namespace {

kernel::SyscallTraceEvent call(uint32_t tid, uint64_t enter_ns, uint8_t flags, int nr = 0) {
  kernel::SyscallTraceEvent event{};
  event.tid = tid;
  event.pid = tid;
  event.nr = nr;
  event.enter_ns = enter_ns;
  event.exit_ns = enter_ns + 10;
  event.flags = flags;
  return event;
}

}  // namespace

TEST(SplitCallLines, AnEntryAndItsResumedExitPassAsTheyAre) {
  SplitCallLines lines;
  auto entry = lines.admit(call(7, 100, SONDE_TRACE_UNFINISHED));
  EXPECT_TRUE(entry.print);
  EXPECT_EQ(entry.flags, SONDE_TRACE_UNFINISHED);
  auto exit = lines.admit(call(7, 100, SONDE_TRACE_RESUMED));
  EXPECT_TRUE(exit.print);
  EXPECT_EQ(exit.flags, SONDE_TRACE_RESUMED);
  auto whole = lines.admit(call(7, 200, 0));
  EXPECT_TRUE(whole.print);
  EXPECT_EQ(whole.flags, 0);
}

TEST(SplitCallLines, AnExitThatMissedTheFlagAfterItsEntryWasPrintedIsResumed) {
  SplitCallLines lines;
  ASSERT_TRUE(lines.admit(call(7, 100, SONDE_TRACE_UNFINISHED)).print);
  auto exit = lines.admit(call(7, 100, 0));
  EXPECT_TRUE(exit.print);
  EXPECT_EQ(exit.flags, SONDE_TRACE_RESUMED);
}

TEST(SplitCallLines, AResumedExitBeforeItsEntryPrintsWholeAndTheLateEntryIsDropped) {
  SplitCallLines lines;
  auto exit = lines.admit(call(7, 100, SONDE_TRACE_RESUMED));
  EXPECT_TRUE(exit.print);
  EXPECT_EQ(exit.flags, 0);
  EXPECT_FALSE(lines.admit(call(7, 100, SONDE_TRACE_UNFINISHED)).print);
  // the thread's next interrupted call splits again
  EXPECT_TRUE(lines.admit(call(7, 300, SONDE_TRACE_UNFINISHED)).print);
  EXPECT_EQ(lines.admit(call(7, 300, SONDE_TRACE_RESUMED)).flags, SONDE_TRACE_RESUMED);
}

TEST(SplitCallLines, OtherThreadsAndCallsShownAtEntryAreLeftAlone) {
  SplitCallLines lines;
  ASSERT_TRUE(lines.admit(call(7, 100, SONDE_TRACE_UNFINISHED)).print);
  auto other = lines.admit(call(8, 150, 0));
  EXPECT_EQ(other.flags, 0);
  constexpr int kRtSigreturn = 15;
  auto sigreturn = lines.admit(call(8, 160, SONDE_TRACE_UNFINISHED, kRtSigreturn));
  EXPECT_TRUE(sigreturn.print);
  EXPECT_EQ(sigreturn.flags, SONDE_TRACE_UNFINISHED);
  EXPECT_EQ(lines.admit(call(8, 170, SONDE_TRACE_NO_RETURN, 60)).flags, SONDE_TRACE_NO_RETURN);
  EXPECT_EQ(lines.admit(call(7, 100, SONDE_TRACE_RESUMED)).flags, SONDE_TRACE_RESUMED);
}
