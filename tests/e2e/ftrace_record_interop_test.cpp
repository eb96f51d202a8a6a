// What `sonde ftrace record` writes, read by both trace-cmd report (the peer) and sonde ftrace
// report: the same lines, byte for byte, in the same order.
#include <gtest/gtest.h>

#include <string>

#include "run.hpp"

using namespace sonde;
using namespace sonde::test;

TEST(FtraceRecordInterop, TraceCmdReportAndSondeReportPrintTheSameEvents) {
  if (run("command -v trace-cmd").exit_code != 0) GTEST_SKIP() << "trace-cmd (the peer) is not installed";
  std::string before = tracing_state();
  std::string out = temp_dir() + "/interop.dat";
  auto recorded =
      run(sonde_bin() + " ftrace record -e sched -e syscalls:sys_enter_write -e syscalls:sys_exit_write -o " +
          out + " -- " + workload("writes") + " 200 1 2 1");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto peer = run("trace-cmd report " + out);
  ASSERT_EQ(peer.exit_code, 0) << peer.err;
  auto ours = run(sonde_bin() + " ftrace report -i " + out);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_GT(lines(peer.out).size(), 800u);  // 4 writers x 200 writes, entry and exit, plus sched
  EXPECT_EQ(ours.out, peer.out);
  EXPECT_EQ(tracing_state(), before);
}

// The payloads sonde prints without libtraceevent (plugins' sched_switch and sched_wakeup, the
// kmem call sites, %pS, %p, __print_flags, __print_symbolic, ?:) on a trace of everything that
// happens in the scheduler, memory management, interrupts and system calls while a few processes
// start and allocate: still trace-cmd report's text, byte for byte.
TEST(FtraceRecordInterop, SchedKmemIrqSyscallTraceReportsAsTraceCmdReportsIt) {
  if (run("command -v trace-cmd").exit_code != 0) GTEST_SKIP() << "trace-cmd (the peer) is not installed";
  std::string before = tracing_state();
  std::string out = temp_dir() + "/sched-kmem-irq.dat";
  auto recorded = run(sonde_bin() + " ftrace record -e sched -e kmem -e irq -e syscalls -o " + out +
                      " -- sh -c 'for i in 1 2 3 4 5 6; do ls -lR /usr/include/linux > /dev/null; done'");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto peer = run("trace-cmd report " + out);
  ASSERT_EQ(peer.exit_code, 0) << peer.err;
  auto ours = run(sonde_bin() + " ftrace report -i " + out);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  for (const char* event : {" sched_switch: ", " sched_wakeup: ", " kmem_cache_alloc: ", " kfree: ",
                            " mm_page_alloc: ", " rss_stat: ", " sys_enter_openat: "})
    EXPECT_NE(ours.out.find(event), std::string::npos) << event << " missing from the trace";
  EXPECT_EQ(ours.out, peer.out);
  EXPECT_EQ(tracing_state(), before);
}
