// analysis/report/task_tree: perf report --tasks' tree from a machine's threads: forks place a
// thread under its parent's tid, perf's idle thread and a thread's leader are there even when no
// record named them, and the order is perf's (tid % 256 buckets, by tid within each).
#include "analysis/report/task_tree.hpp"

#include <gtest/gtest.h>

using namespace sonde;

namespace {

perfdata::ForkExitRecord fork_record(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid) {
  perfdata::ForkExitRecord record{};
  record.pid = pid;
  record.ppid = ppid;
  record.tid = tid;
  record.ptid = ptid;
  return record;
}

std::vector<std::string> lines(const std::vector<analysis::TaskLine>& tasks) {
  std::vector<std::string> out;
  for (const auto& task : tasks)
    out.push_back(std::to_string(task.tid) + "<" + std::to_string(task.ppid) + " " +
                  std::string(static_cast<size_t>(task.level), '.') + task.comm);
  return out;
}

}  // namespace

TEST(TaskTree, ForksNestInPerfsOrder) {
  session::Machine machine;
  session::Thread& shell = machine.thread(300, 300);
  shell.comm = "shell";
  shell.comm_set = true;
  machine.apply_fork(fork_record(44, 300, 44, 300));    // a child of the shell
  machine.apply_fork(fork_record(44, 44, 45, 44));      // a thread of the child
  machine.apply_fork(fork_record(257, 300, 257, 300));  // bucket 1: before 44's bucket
  machine.thread(600, 601);                             // a thread whose leader no record named
  auto tree = analysis::task_tree(machine);
  ASSERT_TRUE(tree) << tree.error().message;
  EXPECT_EQ(lines(*tree),
            (std::vector<std::string>{"0<-1 swapper", "300<-1 shell", "257<300 .shell", "44<300 .shell",
                                      "45<44 ..shell", "600<-1 :600", "601<-1 :601"}));
}
