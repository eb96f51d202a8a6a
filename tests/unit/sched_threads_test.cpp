// analysis/sched: perf's model of threads as perf sched sees them (names, pids, parents, a
// reused tid, the order of its thread table) and timehist's text (columns that widen as perf's
// do, perf's print_sched_time and task names).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "analysis/sched/sched_replay.hpp"
#include "base/output_stream.hpp"
#include "output/sched/timehist_text.hpp"

using namespace sonde;
using namespace sonde::analysis;

TEST(SchedThreads, UnknownThreadIsNamedByTidAndTakesAPidOnce) {
  SchedThreads threads;
  uint32_t id = threads.findnew(-1, 42);
  EXPECT_EQ(threads.comm(id), ":42");
  EXPECT_EQ(threads.pid(id), -1);
  EXPECT_EQ(threads.findnew(0, 42), id);  // perf's wake-up lookup: pid 0 sticks
  EXPECT_EQ(threads.pid(id), 0);
  threads.findnew(42, 42);
  EXPECT_EQ(threads.pid(id), 0);
  EXPECT_EQ(threads.comm(threads.find(0)), "swapper");
}

TEST(SchedThreads, ForkInheritsANameAndReplacesAReusedTid) {
  SchedThreads threads;
  uint32_t parent = threads.apply_comm(100, 100, "server");
  uint32_t child = threads.apply_fork(100, 101, 100, 100);
  EXPECT_EQ(threads.comm(child), "server");
  EXPECT_EQ(threads.ppid(child), 100);
  threads.apply_comm(100, 101, "worker");
  threads.apply_exit(101);
  EXPECT_TRUE(threads.exited(child));
  // The tid comes back for a new process: a new thread, the old one keeps its name.
  uint32_t again = threads.apply_fork(200, 101, 100, 100);
  EXPECT_NE(again, child);
  EXPECT_EQ(threads.comm(child), "worker");
  EXPECT_EQ(threads.comm(again), "server");
  EXPECT_FALSE(threads.exited(again));
  EXPECT_EQ(threads.find(101), again);
  EXPECT_EQ(threads.comm(parent), "server");
}

TEST(SchedThreads, MachineOrderIsTidModulo256ThenTid) {
  SchedThreads threads;
  for (int32_t tid : {513, 2, 257, 1, 300, -1}) threads.findnew(tid, tid);
  std::vector<int32_t> order;
  for (uint32_t id : threads.in_machine_order()) order.push_back(threads.tid(id));
  // 0 (swapper), then buckets 1 (1, 257, 513), 2, 44 (300), 255 (-1).
  EXPECT_EQ(order, (std::vector<int32_t>{0, 1, 257, 513, 2, 300, -1}));
}

namespace {

// The text TimehistText writes, through a pipe.
std::string timehist_text(const std::function<void(output::TimehistText&)>& write,
                          output::TimehistTextOptions options = {}) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  {
    OutputStream out(fds[1], true, "pipe");
    output::TimehistText text(options, out);
    write(text);
    EXPECT_TRUE(text.finish().has_value());
  }
  std::string all;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) all.append(buffer, static_cast<size_t>(n));
  ::close(fds[0]);
  return all;
}

}  // namespace

TEST(TimehistText, RowsInPerfsLayoutAndTheNameColumnWidens) {
  std::string text = timehist_text([](output::TimehistText& t) {
    TimehistRow row;
    row.time = 34323195365123456ULL / 1000;  // 34323.195365 s
    row.cpu = 1;
    row.task = TimehistTask{"cc1plus", 22566, 22566};
    row.wait = 1206999;
    row.delay = 0;
    row.run = 1078000;
    t.row(row);
    row.task = TimehistTask{"a-very-long-name", 1234567, 7654321};
    t.row(row);
    row.task = TimehistTask{"<idle>", 0, 0};
    row.idle = true;
    t.row(row);
  });
  EXPECT_EQ(text,
            "   34323.195365 [0001]  cc1plus[22566]                      1.206      0.000      1.078 \n"
            // perf prints the name into 32 bytes: 31 characters, and the column is 31 wide from then on.
            "   34323.195365 [0001]  a-very-long-name[7654321/123456      1.206      0.000      1.078 \n"
            "   34323.195365 [0001]  <idle>                               1.206      0.000      1.078 \n");
}
