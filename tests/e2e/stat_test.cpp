// sonde stat end to end: exact counts from workloads with known behaviour, perf's layouts, and
// perf itself as the oracle where it is installed.
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "base/strings.hpp"
#include "run.hpp"

using namespace sonde;
using namespace sonde::test;

namespace {

std::string writes(long n, const std::string& extra = "") {
  return workload("writes") + " " + std::to_string(n) + (extra.empty() ? "" : " " + extra);
}

// The value of a counter line "   123      name   # ..." in human output; -1 when absent.
double human_value(const std::string& text, const std::string& event) {
  for (const auto& line : lines(text)) {
    std::istringstream in(line);
    std::string value, second, third;
    in >> value >> second;
    if (second == event) return std::stod(value);
    if (second == "msec" && (in >> third) && third == event) return std::stod(value);
  }
  return -1;
}

// CSV rows keyed by event name: the fields of "value,unit,event,...".
std::map<std::string, std::vector<std::string>> csv_rows(const std::string& text, size_t name_field = 2) {
  std::map<std::string, std::vector<std::string>> rows;
  for (const auto& line : lines(text)) {
    auto fields = split(line, ',');
    if (fields.size() > name_field) rows[fields[name_field]] = fields;
  }
  return rows;
}

}  // namespace

TEST(Stat, CountsExactlyTheWritesOfAWorkload) {
  auto result = run(sonde_bin() + " stat -e syscalls:sys_enter_write -- " + writes(1234));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(human_value(result.err, "syscalls:sys_enter_write"), 1234) << result.err;
  EXPECT_NE(result.err.find("Performance counter stats for '" + writes(1234) + "':"), std::string::npos);
  EXPECT_NE(result.err.find("seconds time elapsed"), std::string::npos);
  EXPECT_NE(result.err.find("seconds user"), std::string::npos);
}

TEST(Stat, CountsThreadsAndChildrenOfTheWorkload) {
  // 100 writes by each of the main thread, 3 threads and 2 children.
  // In the kernel (the whole glob) and with one perf event per tracepoint (a small glob: opening
  // all ~360 that way takes seconds, as with perf).
  for (std::string events :
       {"-e 'syscalls:sys_enter_*'", "--no-syscall-aggregation -e 'syscalls:sys_enter_w*'"}) {
    auto result =
        run(sonde_bin() + " stat -x, -e syscalls:sys_enter_write " + events + " -- " + writes(100, "1 3 2"));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    auto rows = csv_rows(result.err);
    ASSERT_TRUE(rows.count("syscalls:sys_enter_write")) << result.err;
    // The event is listed twice (alone and from the glob); both lines must say 600.
    int seen = 0;
    for (const auto& line : lines(result.err)) {
      auto fields = split(line, ',');
      if (fields.size() > 2 && fields[2] == "syscalls:sys_enter_write") {
        EXPECT_EQ(fields[0], "600") << events << "\n" << result.err;
        ++seen;
      }
    }
    EXPECT_EQ(seen, 2);
  }
}

TEST(Stat, RepeatsGiveTheMeanAndNoSpread) {
  auto result = run(sonde_bin() + " stat -r 5 -e syscalls:sys_enter_write -- " + writes(321));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(human_value(result.err, "syscalls:sys_enter_write"), 321) << result.err;
  EXPECT_NE(result.err.find("(5 runs)"), std::string::npos);
  // perf prints no "( +- )" for a spread of zero.
  for (const auto& line : lines(result.err)) {
    if (line.find("sys_enter_write") != std::string::npos) {
      EXPECT_EQ(line.find("+-"), std::string::npos) << line;
    }
  }
  auto csv = run(sonde_bin() + " stat -r 5 -x, -e syscalls:sys_enter_write -- " + writes(321));
  auto rows = csv_rows(csv.err);
  ASSERT_TRUE(rows.count("syscalls:sys_enter_write")) << csv.err;
  EXPECT_EQ(rows["syscalls:sys_enter_write"][0], "321");
  EXPECT_EQ(rows["syscalls:sys_enter_write"][3], "0.00%");
}

TEST(Stat, CsvAgreesWithHumanOutput) {
  auto csv =
      run(sonde_bin() + " stat -x, -e syscalls:sys_enter_write,task-clock,page-faults -- " + writes(77));
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  auto rows = csv_rows(csv.err);
  ASSERT_EQ(rows.size(), 3u) << csv.err;
  EXPECT_EQ(rows["syscalls:sys_enter_write"][0], "77");
  EXPECT_EQ(rows["task-clock"][1], "msec");
  EXPECT_EQ(rows["task-clock"].size(), 7u);
  EXPECT_EQ(rows["task-clock"][6], "CPUs utilized");
  EXPECT_EQ(rows["page-faults"][6].find("/sec") != std::string::npos, true) << csv.err;
  // Separators other than ',' too.
  auto semicolon = run(sonde_bin() + " stat -x';' -e syscalls:sys_enter_write -- " + writes(5));
  EXPECT_EQ(semicolon.err.rfind("5;;syscalls:sys_enter_write;", 0), 0u) << semicolon.err;
}

TEST(Stat, PerCpuValuesSumToTheAggregate) {
  // System wide, but the kernel filter keeps only this workload's 4321-byte writes.
  std::string events = "-e syscalls:sys_enter_write --filter 'count == 4321'";
  auto per_cpu = run(sonde_bin() + " stat -a -A -x, " + events + " -- " + writes(500, "4321 1"));
  ASSERT_EQ(per_cpu.exit_code, 0) << per_cpu.err;
  double sum = 0;
  int cpus = 0;
  for (const auto& line : lines(per_cpu.err)) {
    auto fields = split(line, ',');
    ASSERT_GE(fields.size(), 4u) << line;
    EXPECT_EQ(fields[0].rfind("CPU", 0), 0u) << line;
    sum += std::stod(fields[1]);
    ++cpus;
  }
  EXPECT_GE(cpus, 1);
  EXPECT_EQ(sum, 1000) << per_cpu.err;
  auto aggregate = run(sonde_bin() + " stat -a -x, " + events + " -- " + writes(500, "4321 1"));
  EXPECT_EQ(csv_rows(aggregate.err)["syscalls:sys_enter_write"][0], "1000") << aggregate.err;
}

TEST(Stat, IntervalsEveryHundredMilliseconds) {
  auto result = run(sonde_bin() + " stat -I 100 -e task-clock -- sleep 1");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  int intervals = 0;
  std::regex stamp(R"(^\s+\d+\.\d{9} )");
  for (const auto& line : lines(result.err))
    if (std::regex_search(line, stamp)) ++intervals;
  EXPECT_GE(intervals, 9) << result.err;
  EXPECT_LE(intervals, 11) << result.err;
  EXPECT_EQ(lines(result.err).front(), "#           time             counts unit events");
}

TEST(Stat, AttachesToARunningProcess) {
  // The workload sleeps 300 ms, then writes; sonde attaches during the sleep and stops at its exit.
  auto result = run("( " + writes(250, "1 0 0 300") + " & pid=$!; sleep 0.1; " + sonde_bin() +
                    " stat -x, -e syscalls:sys_enter_write -p $pid )");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(csv_rows(result.err)["syscalls:sys_enter_write"][0], "250") << result.err;
}

TEST(Stat, ExitStatusIsTheWorkloads) {
  EXPECT_EQ(run(sonde_bin() + " stat -e page-faults -- sh -c 'exit 7'").exit_code, 7);
  auto missing = run(sonde_bin() + " stat -- /nonexistent/command");
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_NE(missing.err.find("cannot run '/nonexistent/command': command not found"), std::string::npos)
      << missing.err;
}

TEST(Stat, TimeoutEndsTheWorkloadAndSucceeds) {
  auto result = run(sonde_bin() + " stat --timeout 200 -x, -e task-clock -- sleep 5");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  auto interval = run(sonde_bin() + " stat -I 100 --interval-count 2 -e task-clock -- sleep 5");
  EXPECT_EQ(interval.exit_code, 0) << interval.err;
  EXPECT_EQ(lines(interval.err).size(), 3u) << interval.err;  // the header and two intervals
}

TEST(Stat, DefaultEventsAsPerf) {
  auto result = run(sonde_bin() + " stat -- true");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* event : {"task-clock", "context-switches", "cpu-migrations", "page-faults", "cycles",
                            "instructions", "branches", "branch-misses"})
    EXPECT_NE(result.err.find(event), std::string::npos) << event << "\n" << result.err;
  EXPECT_NE(result.err.find("CPUs utilized"), std::string::npos);
  auto detailed = run(sonde_bin() + " stat -dd -- true");
  EXPECT_NE(detailed.err.find("dTLB-load-misses"), std::string::npos) << detailed.err;
}

TEST(Stat, WritesToAnOutputFile) {
  std::string path = "/tmp/sonde-stat-test-output.txt";
  auto result = run(sonde_bin() + " stat -o " + path + " -e syscalls:sys_enter_write -- " + writes(3));
  ASSERT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.err, "");
  auto file = run("cat " + path + "; rm -f " + path);
  EXPECT_EQ(file.out.rfind("# started on ", 0), 0u) << file.out;
  EXPECT_EQ(human_value(file.out, "syscalls:sys_enter_write"), 3) << file.out;
}

TEST(Stat, InterruptedSystemWideCountStillReports) {
  std::string before = tracing_state();
  auto result = run("( " + sonde_bin() +
                    " stat -a -e 'syscalls:sys_enter_*' -e task-clock & pid=$!; sleep 0.5; "
                    "kill -INT $pid; wait $pid )");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("system wide"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("seconds time elapsed"), std::string::npos) << result.err;
  // The shell's own kill() is among the counted calls.
  EXPECT_GE(human_value(result.err, "syscalls:sys_enter_kill"), 1) << result.err;
  EXPECT_EQ(tracing_state(), before);
}

TEST(Stat, AgreesWithPerfOnSyscallCounts) {
  if (!have_perf()) GTEST_SKIP() << "perf is not installed";
  // A small glob keeps perf's per-tracepoint set-up quick; sonde counts it in the kernel.
  std::string events = "-e 'syscalls:sys_enter_[mw]*' -e 'syscalls:sys_exit_[mw]*'";
  std::string command = " -x, " + events + " -- " + writes(50, "1 2 1");
  auto perf = run("perf stat" + command);
  auto ours = run(sonde_bin() + " stat" + command);
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto perf_rows = csv_rows(perf.err), our_rows = csv_rows(ours.err);
  ASSERT_EQ(perf_rows.size(), our_rows.size());
  for (const auto& [name, fields] : perf_rows) {
    ASSERT_TRUE(our_rows.count(name)) << name;
    EXPECT_EQ(our_rows[name][0], fields[0]) << name;
  }
  EXPECT_EQ(our_rows["syscalls:sys_enter_write"][0], "200");
}

TEST(Stat, LayoutMatchesPerf) {
  if (!have_perf()) GTEST_SKIP() << "perf is not installed";
  // Same events, same workload: lines must agree once the numbers are masked.
  auto mask = [](const std::string& text) {
    std::string masked = std::regex_replace(text, std::regex(R"(\d+(\.\d+)?)"), "N");
    // A rate's prefix depends on its size (957.452 /sec, 1.023 K/sec): compare the unit alone.
    masked = std::regex_replace(masked, std::regex(R"( [KMG]/sec)"), " /sec ");
    // Numbers of different widths shift the padding before them; compare columns after it.
    return std::regex_replace(masked, std::regex(" +N"), " N");
  };
  for (std::string args :
       std::vector<std::string>{"-e task-clock,page-faults,cycles,syscalls:sys_enter_write -- " + writes(9),
                                "-x, -e task-clock,page-faults,cycles -- " + writes(9),
                                "-a -A -e cpu-clock,page-faults -- sleep 0.05"}) {
    auto perf = run("perf stat " + args);
    auto ours = run(sonde_bin() + " stat " + args);
    EXPECT_EQ(mask(ours.err), mask(perf.err)) << args;
  }
}
