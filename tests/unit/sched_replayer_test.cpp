// capture/sched_replayer: a small plan of two tasks handing a wake-up back and forth runs round
// after round (the semaphores balance), and the running averages follow perf's formula.
#include "capture/sched_replayer.hpp"

#include <gtest/gtest.h>

#include "output/sched/replay_text.hpp"

using namespace sonde;
using namespace sonde::capture;

namespace {

ReplayPlan ping_pong() {
  ReplayPlan plan;
  plan.semaphores = 2;
  ReplayTask a{"a", 10, {}};
  a.atoms = {{ReplayAtomKind::sleep, 0, 0},
             {ReplayAtomKind::run, 200000, ReplayAtom::kNoSemaphore},
             {ReplayAtomKind::wakeup, 0, 1}};
  ReplayTask b{"b", 11, {}};
  b.atoms = {{ReplayAtomKind::run, 100000, ReplayAtom::kNoSemaphore},
             {ReplayAtomKind::wakeup, 0, 0},
             {ReplayAtomKind::sleep, 0, 1},
             // a wake-up without a semaphore (target-less in perf's words) does nothing
             {ReplayAtomKind::wakeup, 0, ReplayAtom::kNoSemaphore}};
  plan.tasks = {a, b};
  return plan;
}

}  // namespace

TEST(SchedReplayer, RunsRoundsOfAPlanWhoseWakeupsBalance) {
  ReplayPlan plan = ping_pong();
  auto replayer = SchedReplayer::start(plan, 0, 3);
  ASSERT_TRUE(replayer) << replayer.error().message;
  uint64_t run_avg = 0;
  for (uint64_t n = 1; n <= 3; ++n) {
    ReplayRound round = (*replayer)->run_round();
    EXPECT_EQ(round.number, n);
    // Both runs happen one after the other: at least 0.3 ms of wall time.
    EXPECT_GE(round.wall, 300000u);
    EXPECT_GT(round.cpu, 0u);
    uint64_t expected = run_avg == 0 ? round.wall : run_avg;
    expected = (expected * 2 + round.wall) / 3;
    EXPECT_EQ(round.run_avg, expected);
    run_avg = round.run_avg;
  }
}

TEST(SchedReplayer, AnEmptyPlanRunsAtOnce) {
  ReplayPlan plan;
  auto replayer = SchedReplayer::start(plan, 0, 1);
  ASSERT_TRUE(replayer);
  EXPECT_EQ((*replayer)->run_round().number, 1u);
}

TEST(ReplayText, RoundLineIsPerfs) {
  fmt::memory_buffer out;
  output::append_replay_round(ReplayRound{1, 28027123, 28030000, 25050000, 25054999}, out);
  EXPECT_EQ(fmt::to_string(out), "#1  : 28.027, ravg: 28.03, cpu: 25.05 / 25.05\n");
}
