// The trace summaries' text, from hand-made stats. The layouts were checked against perf 6.1
// and strace 6.1 on this machine: the same formatter fed the exact per-call durations of a
// recording (perf script --ns of `perf trace record`, strace -T --syscall-times=ns) printed the
// same bytes as `perf trace -i FILE -s --errno-summary` (9374 lines, 348 threads over all 256
// tid % 256 buckets) and as strace -C -w with each -S order.
#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/trace/syscall_stats.hpp"
#include "output/trace/summary_tables.hpp"

using namespace sonde;
using analysis::SyscallRow;
using analysis::SyscallStats;
using analysis::SyscallSummary;
using analysis::ThreadSyscalls;

namespace {

// One syscall's row from its calls: (duration in ns, raw return value).
SyscallRow row(int number, std::string name, std::initializer_list<std::pair<uint64_t, int64_t>> calls) {
  SyscallRow result{number, std::move(name), {}};
  for (const auto& [duration, ret] : calls) result.stats.add(duration, ret);
  return result;
}

ThreadSyscalls thread(pid_t tid, std::string comm, uint64_t events, std::vector<SyscallRow> syscalls = {}) {
  ThreadSyscalls result;
  result.tid = tid;
  result.comm = std::move(comm);
  result.events = events;
  result.syscalls = std::move(syscalls);
  return result;
}

// ls's calls, shaped as perf trace -s --errno-summary -- ls /nonexistent prints them (perf 6.1):
//
//  Summary of events:
//
//  ls (4594), 296 events, 97.4%
//
//    syscall            calls  errors  total       min       avg       max       stddev
//                                      (msec)    (msec)    (msec)    (msec)        (%)
//    --------------- --------  ------ -------- --------- --------- ---------     ------
//    openat                39     19     0.979     0.016     0.025     0.051      3.92%
// 				ENOENT: 19
//    mmap                  30      0     0.887     0.018     0.030     0.093      8.30%
//    ...
//    ioctl                  1      1     0.023     0.023     0.023     0.023      0.00%
// 				ENOTTY: 1
//    execve                 1      0     0.000     0.000     0.000     0.000      0.00%
//
//
SyscallSummary ls_summary() {
  SyscallSummary summary;
  summary.total_events = 304;
  summary.threads.push_back(thread(4594, "ls", 296,
                                   {
                                       row(257, "openat", {{10000, 3}, {20000, -2}, {33000, -2}}),
                                       row(9, "mmap", {{25000, 0x7f0000000000}, {27000, 0x7f0000001000}}),
                                       row(16, "ioctl", {{23000, -25}}),
                                       row(59, "execve", {{0, 0}}),
                                       row(204, "sched_getaffinity", {{2000, 8}}),
                                       row(3, "close", {{12500, 0}}),
                                       row(0, "read", {{12500, 512}}),
                                   }));
  return summary;
}

constexpr const char* kPerfColumns =
    "   syscall            calls  errors  total       min       avg       max       stddev\n"
    "                                     (msec)    (msec)    (msec)    (msec)        (%)\n"
    "   --------------- --------  ------ -------- --------- --------- ---------     ------\n";

// The " comm (tid), ..." lines of a perf summary, in order.
std::vector<std::string> thread_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string line = text.substr(start, end - start);
    if (line.find(" events, ") != std::string::npos) lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

}  // namespace

TEST(SyscallStats, CountsCallsErrorsAndExtremes) {
  SyscallStats stats;
  stats.add(300, 0);
  stats.add(100, -2);
  stats.add(200, -2);
  stats.add(400, -4096);           // not an errno: a large unsigned value
  stats.add(500, 0x7f0000000000);  // an address
  stats.add(600, -512);            // kernel-internal ERESTARTSYS still failed
  EXPECT_EQ(stats.calls, 6u);
  EXPECT_EQ(stats.errors, 3u);
  EXPECT_EQ(stats.total_ns, 2100u);
  EXPECT_EQ(stats.min_ns, 100u);
  EXPECT_EQ(stats.max_ns, 600u);
  EXPECT_EQ(stats.errnos, (std::map<int, uint64_t>{{2, 2}, {512, 1}}));
  EXPECT_DOUBLE_EQ(stats.average_ns(), 350.0);
}

TEST(SyscallStats, MergeKeepsExtremesOfBoth) {
  SyscallStats a, b, empty;
  a.add(50, -1);
  b.add(10, 0);
  b.add(90, -1);
  a.merge(empty);
  EXPECT_EQ(a.calls, 1u);
  a.merge(b);
  EXPECT_EQ(a.calls, 3u);
  EXPECT_EQ(a.errors, 2u);
  EXPECT_EQ(a.min_ns, 10u);
  EXPECT_EQ(a.max_ns, 90u);
  EXPECT_EQ(a.total_ns, 150u);
  EXPECT_EQ(a.errnos.at(1), 2u);
  empty.merge(b);  // into nothing: b's minimum, not 0
  EXPECT_EQ(empty.min_ns, 10u);
}

TEST(SyscallStats, RelativeStddevIsPerfsStandardErrorOfTheMean) {
  SyscallStats stats;
  for (uint64_t ns : {1000, 2000, 3000, 4000}) stats.add(ns, 0);
  // sample variance 1.6667e6, over n=4 -> 4.1667e5, sqrt -> 645.5; over the mean 2500 -> 25.82%.
  EXPECT_NEAR(stats.relative_stddev_percent(), 25.8199, 1e-4);

  SyscallStats one;
  one.add(5000, 0);
  EXPECT_EQ(one.relative_stddev_percent(), 0.0);
  SyscallStats zeros;
  zeros.add(0, 0);
  zeros.add(0, 0);
  EXPECT_EQ(zeros.relative_stddev_percent(), 0.0);
  SyscallStats same;
  for (int i = 0; i < 3; ++i) same.add(1'000'000'000, 0);
  EXPECT_EQ(same.relative_stddev_percent(), 0.0);
}

TEST(SyscallStats, MergeThreadsBySyscallInNumberOrder) {
  SyscallSummary summary;
  summary.threads.push_back(thread(10, "a", 4, {row(257, "openat", {{100, 3}}), row(0, "read", {{10, 1}})}));
  summary.threads.push_back(thread(11, "b", 4, {row(0, "read", {{30, -11}}), row(1, "write", {})}));
  auto rows = analysis::merge_threads(summary);
  ASSERT_EQ(rows.size(), 2u);  // write had no calls
  EXPECT_EQ(rows[0].name, "read");
  EXPECT_EQ(rows[0].stats.calls, 2u);
  EXPECT_EQ(rows[0].stats.errors, 1u);
  EXPECT_EQ(rows[0].stats.total_ns, 40u);
  EXPECT_EQ(rows[1].name, "openat");
}

TEST(PerfTraceSummary, OneThreadWithErrnoSummary) {
  std::string expected =
      std::string("\n Summary of events:\n\n") + " ls (4594), 296 events, 97.4%\n\n" + kPerfColumns +
      "   openat                 3      2     0.063     0.010     0.021     0.033     31.71%\n"
      "\t\t\t\tENOENT: 2\n"
      "   mmap                   2      0     0.052     0.025     0.026     0.027      3.85%\n"
      "   ioctl                  1      1     0.023     0.023     0.023     0.023      0.00%\n"
      "\t\t\t\tENOTTY: 1\n"
      // a tie in total: syscall number order
      "   read                   1      0     0.013     0.013     0.013     0.013      0.00%\n"
      "   close                  1      0     0.013     0.013     0.013     0.013      0.00%\n"
      // %-15s does not cut a longer name, the columns shift
      "   sched_getaffinity        1      0     0.002     0.002     0.002     0.002      0.00%\n"
      "   execve                 1      0     0.000     0.000     0.000     0.000      0.00%\n"
      "\n\n";
  EXPECT_EQ(output::perf_trace_summary(ls_summary(), {.errno_summary = true}), expected);

  // Without --errno-summary the same rows and no errno lines.
  std::string plain = expected;
  for (const char* line : {"\t\t\t\tENOENT: 2\n", "\t\t\t\tENOTTY: 1\n"})
    plain.erase(plain.find(line), strlen(line));
  EXPECT_EQ(output::perf_trace_summary(ls_summary(), {}), plain);
}

TEST(PerfTraceSummary, ErrnosInNumberOrderUnknownNamed) {
  SyscallSummary summary;
  summary.threads.push_back(
      thread(7, "sh", 8, {row(61, "wait4", {{1000, -512}, {1000, -10}, {1000, -4}, {1000, -10}})}));
  summary.total_events = 8;
  const std::string text = output::perf_trace_summary(summary, {.errno_summary = true});
  EXPECT_NE(
      text.find("   wait4                  4      4     0.004     0.001     0.001     0.001      0.00%\n"
                "\t\t\t\tEINTR: 1\n"
                "\t\t\t\tECHILD: 2\n"
                "\t\t\t\t(unknown): 1\n"
                "\n\n"),
      std::string::npos)
      << text;
}

// perf trace -s -F all -- ls (no --syscalls: only page faults are traced):
//
//  Summary of events:
//
//  ls (8024), 104 events, 67.1%, 104 minfaults
//
//    syscall            calls  errors  total       min       avg       max       stddev
//                                      (msec)    (msec)    (msec)    (msec)        (%)
//    --------------- --------  ------ -------- --------- --------- ---------     ------
//
//
TEST(PerfTraceSummary, ThreadWithEventsButNoSyscallsPrintsHeadersOnly) {
  SyscallSummary summary;
  summary.total_events = 155;
  auto ls = thread(8024, "ls", 104);
  ls.minfaults = 104;
  summary.threads.push_back(ls);
  summary.threads.push_back(thread(8025, "never-seen", 0));  // no trace state in perf: left out
  EXPECT_EQ(output::perf_trace_summary(summary, {}),
            std::string("\n Summary of events:\n\n ls (8024), 104 events, 67.1%, 104 minfaults\n\n") +
                kPerfColumns + "\n\n");
}

TEST(PerfTraceSummary, FaultsAndSchedRuntimeAfterTheShare) {
  SyscallSummary summary;
  summary.total_events = 299;
  auto ls = thread(8006, "ls", 291, {row(0, "read", {{1000, 1}})});
  ls.majfaults = 1;
  ls.minfaults = 103;
  ls.runtime_ms = 7.9854;
  summary.threads.push_back(ls);
  // perf trace -s --sched -- ls: " ls (8006), 291 events, 97.3%, 7.985 msec"
  EXPECT_EQ(
      thread_lines(output::perf_trace_summary(summary, {.sched = true})),
      std::vector<std::string>{" ls (8006), 291 events, 97.3%, 1 majfaults, 103 minfaults, 7.985 msec"});
  EXPECT_EQ(thread_lines(output::perf_trace_summary(summary, {})),
            std::vector<std::string>{" ls (8006), 291 events, 97.3%, 1 majfaults, 103 minfaults"});
}

// perf 6.1 walks its 256 thread buckets (tid % 256) in order and sorts each by events, fewest
// first, ties by tid: from `perf trace -s -- sh -c 'for i in $(seq 300); do /bin/true; done'`
//  true (3072), 62 events, ...      <- bucket 0, although started after the others
//  ...
//  true (3965), 62 events, ...      <- bucket 125
//  seq (3709), 252 events, ...      <- bucket 125, more events
//  ...
//  true (3732), 62 events, ...      <- bucket 148, equal events: lower tid first
//  true (3988), 62 events, ...
//  sh (3008), 3478 events, ...     <- bucket 192
TEST(PerfTraceSummary, ThreadsInPerfsBucketOrder) {
  SyscallSummary summary;
  for (auto [tid, events] : std::initializer_list<std::pair<pid_t, uint64_t>>{
           {3709, 252}, {3965, 62}, {3988, 62}, {3732, 62}, {3072, 62}, {3008, 3478}})
    summary.threads.push_back(thread(tid, "t", events, {row(0, "read", {{1000, 1}})}));
  summary.total_events = 4000;
  EXPECT_EQ(thread_lines(output::perf_trace_summary(summary, {})), (std::vector<std::string>{
                                                                       " t (3072), 62 events, 1.6%",
                                                                       " t (3965), 62 events, 1.6%",
                                                                       " t (3709), 252 events, 6.3%",
                                                                       " t (3732), 62 events, 1.6%",
                                                                       " t (3988), 62 events, 1.6%",
                                                                       " t (3008), 3478 events, 87.0%",
                                                                   }));
}

TEST(PerfTraceSummary, SharesOfTheThreadsWhenNoTotalIsGiven) {
  SyscallSummary summary;
  summary.threads.push_back(thread(1, "a", 30));
  summary.threads.push_back(thread(2, "b", 10));
  EXPECT_EQ(thread_lines(output::perf_trace_summary(summary, {})),
            (std::vector<std::string>{" a (1), 30 events, 75.0%", " b (2), 10 events, 25.0%"}));
}

TEST(PerfTraceSummary, SortKeys) {
  SyscallSummary summary;
  summary.total_events = 20;
  summary.threads.push_back(thread(5, "x", 20,
                                   {
                                       row(1, "write", {{9000, 1}}),
                                       row(0, "read", {{1000, 1}, {2000, -11}, {3000, 1}}),
                                       row(3, "close", {{500, -9}, {500, -9}}),
                                       row(2, "open", {{1000, 3}, {1000, 3}, {1000, 3}}),
                                   }));
  auto order = [&](std::string_view sort) {
    std::string names;
    const std::string text = output::perf_trace_summary(summary, {.sort = sort});
    size_t pos = text.find("------\n");
    while ((pos = text.find("\n   ", pos)) != std::string::npos) {
      pos += 4;
      names += text.substr(pos, text.find(' ', pos) - pos) + " ";
    }
    return names;
  };
  EXPECT_EQ(order(""), "write read open close ");       // total msec
  EXPECT_EQ(order("calls"), "read open close write ");  // read and open tie: by total
  EXPECT_EQ(order("errors"), "close read write open ");
  EXPECT_EQ(order("errors,calls"), "close read open write ");
  EXPECT_EQ(order("name"), "close open read write ");
  EXPECT_EQ(order("min"), "write read open close ");
  EXPECT_EQ(order("max"), "write read open close ");
  EXPECT_EQ(order(" avg , name"), "write read open close ");
  EXPECT_EQ(order("stddev"), "read write open close ");

  EXPECT_TRUE(output::check_perf_summary_sort("calls,errors,total,min,avg,max,stddev,name").has_value());
  EXPECT_TRUE(output::check_perf_summary_sort("").has_value());
  auto bad = output::check_perf_summary_sort("calls,msecs");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("'msecs'"), std::string::npos);
  EXPECT_EQ(bad.error().kind, Error::Kind::usage);
}

// strace -c -f -- ls (strace 6.1):
//
// % time     seconds  usecs/call     calls    errors syscall
// ------ ----------- ----------- --------- --------- ----------------
//  24.80    0.000571          16        34        13 openat
//  21.63    0.000498          16        30           mmap
//  ...
//   0.00    0.000000           0         1           execve
// ------ ----------- ----------- --------- --------- ----------------
// 100.00    0.002302          15       144        19 total
//
// The name column is as wide as the longest name and one more, at least 16: with nproc's
// sched_getaffinity the dashes are 18.
TEST(StraceSummary, DefaultLayout) {
  EXPECT_EQ(output::strace_summary(ls_summary()),
            "% time     seconds  usecs/call     calls    errors syscall\n"
            "------ ----------- ----------- --------- --------- ------------------\n"
            " 38.18    0.000063          21         3         2 openat\n"
            " 31.52    0.000052          26         2           mmap\n"
            " 13.94    0.000023          23         1         1 ioctl\n"
            "  7.58    0.000013          12         1           read\n"  // 12.5 us: truncated
            "  7.58    0.000013          12         1           close\n"
            "  1.21    0.000002           2         1           sched_getaffinity\n"
            "  0.00    0.000000           0         1           execve\n"
            "------ ----------- ----------- --------- --------- ------------------\n"
            "100.00    0.000165          16        10         3 total\n");
}

TEST(StraceSummary, MergesThreadsAndBlanksZeroErrors) {
  SyscallSummary summary;
  summary.threads.push_back(thread(1, "sh", 0, {row(61, "wait4", {{3'674'000, 6}, {0, -10}})}));
  summary.threads.push_back(thread(2, "ls", 0, {row(0, "read", {{10'000, 4}})}));
  summary.threads.push_back(thread(3, "ls", 0, {row(0, "read", {{20'000, 4}})}));
  EXPECT_EQ(output::strace_summary(summary),
            "% time     seconds  usecs/call     calls    errors syscall\n"
            "------ ----------- ----------- --------- --------- ----------------\n"
            " 99.19    0.003674        1837         2         1 wait4\n"
            "  0.81    0.000030          15         2           read\n"
            "------ ----------- ----------- --------- --------- ----------------\n"
            "100.00    0.003704         926         4         1 total\n");

  SyscallSummary no_errors;
  no_errors.threads.push_back(thread(2, "ls", 0, {row(0, "read", {{10'000, 4}})}));
  EXPECT_EQ(output::strace_summary(no_errors),
            "% time     seconds  usecs/call     calls    errors syscall\n"
            "------ ----------- ----------- --------- --------- ----------------\n"
            "100.00    0.000010          10         1           read\n"
            "------ ----------- ----------- --------- --------- ----------------\n"
            "100.00    0.000010          10         1           total\n");
}

TEST(StraceSummary, ColumnsWidenForBigNumbers) {
  // Widths are strace's historical ones widened to the totals' text (and to the largest mean).
  SyscallSummary summary;
  auto big = thread(1, "a", 0);
  SyscallRow poll{7, "poll", {}};
  poll.stats.calls = 1'234'567'890;
  poll.stats.errors = 1'000'000'000;
  poll.stats.total_ns = 12'345'678'901'000;  // 12345.678901 s
  poll.stats.min_ns = 1;
  poll.stats.max_ns = 1'000'000'000;
  big.syscalls.push_back(poll);
  big.syscalls.push_back(row(35, "nanosleep", {{100'000'000'000'000, 0}}));  // 100000 s: 1e11 us
  summary.threads.push_back(big);
  EXPECT_EQ(output::strace_summary(summary),
            "% time       seconds   usecs/call      calls     errors syscall\n"
            "------ ------------- ------------ ---------- ---------- ----------------\n"
            " 89.01 100000.000000 100000000000          1            nanosleep\n"
            " 10.99  12345.678901           10 1234567890 1000000000 poll\n"
            "------ ------------- ------------ ---------- ---------- ----------------\n"
            "100.00 112345.678901           91 1234567891 1000000000 total\n");
}

TEST(StraceSummary, SortOrders) {
  auto order = [](std::string_view sort) {
    std::string names;
    const std::string text = output::strace_summary(ls_summary(), sort);
    size_t pos = text.find('\n', text.find('\n') + 1) + 1;  // past the header and dashes
    while (text.compare(pos, 1, "-") != 0) {
      size_t end = text.find('\n', pos);
      size_t space = text.rfind(' ', end);
      names += text.substr(space + 1, end - space - 1) + " ";
      pos = end + 1;
    }
    return names;
  };
  EXPECT_EQ(order("calls"), "openat mmap read close ioctl execve sched_getaffinity ");
  EXPECT_EQ(order("count"), order("calls"));
  EXPECT_EQ(order("errors"), "openat ioctl read close mmap execve sched_getaffinity ");
  EXPECT_EQ(order("name"), "close execve ioctl mmap openat read sched_getaffinity ");
  EXPECT_EQ(order("min-time"), "mmap ioctl read close openat sched_getaffinity execve ");
  EXPECT_EQ(order("longest"), "openat mmap ioctl read close sched_getaffinity execve ");
  EXPECT_EQ(order("avg-time"), "mmap ioctl openat read close sched_getaffinity execve ");
  EXPECT_EQ(order("none"), "read close mmap ioctl execve sched_getaffinity openat ");
  EXPECT_EQ(order(""), order("time"));
  EXPECT_EQ(order("total-time"), "openat mmap ioctl read close sched_getaffinity execve ");

  EXPECT_TRUE(output::check_strace_sort("shortest").has_value());
  auto bad = output::check_strace_sort("msecs");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message, "invalid sortby: 'msecs'");
}

TEST(StraceSummary, NothingCountedPrintsNothing) {
  SyscallSummary summary;
  summary.threads.push_back(thread(1, "a", 3));
  EXPECT_EQ(output::strace_summary(summary), "");
}
