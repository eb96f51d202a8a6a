// sonde list: perf list's sections and layout, its filters, and the tracepoints tracefs has.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "base/file.hpp"
#include "run.hpp"

using namespace sonde::test;

namespace {

const std::string kEvents = "/sys/kernel/tracing/events";

// The tracepoints of one system as tracefs lists them (event directories with an id).
std::vector<std::string> tracefs_tracepoints(const std::string& system) {
  std::vector<std::string> names;
  auto entries = sonde::list_directory(kEvents + "/" + system);
  if (!entries) return names;
  for (const auto& entry : *entries)
    if (sonde::path_exists(kEvents + "/" + system + "/" + entry + "/id"))
      names.push_back(system + ":" + entry);
  std::sort(names.begin(), names.end());
  return names;
}

// The event names of perf-list-style lines ("  name   [Kind]") of one kind.
std::vector<std::string> names_of_kind(const std::string& output, const std::string& kind) {
  std::vector<std::string> names;
  for (const auto& line : lines(output)) {
    if (line.size() < 4 || line.find("[" + kind + "]") == std::string::npos) continue;
    std::string name = line.substr(2, line.find("  ", 2) - 2);
    names.push_back(name);
  }
  return names;
}

TEST(List, HasPerfsSectionsAndLayout) {
  auto result = run(sonde_bin() + " list");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* section :
       {"[Hardware event]", "[Software event]", "[Hardware cache event]", "[Kernel PMU event]",
        "[Raw hardware event descriptor]", "[Hardware breakpoint]", "[Tracepoint event]"}) {
    EXPECT_NE(result.out.find(section), std::string::npos) << section;
  }
  EXPECT_NE(result.out.find("  cpu-cycles OR cycles                               [Hardware event]\n"),
            std::string::npos);
  EXPECT_NE(result.out.find("  context-switches OR cs                             [Software event]\n"),
            std::string::npos);
  EXPECT_NE(result.out.find("  L1-dcache-load-misses                              [Hardware cache event]\n"),
            std::string::npos);
  EXPECT_NE(result.out.find(
                "  rNNN                                               [Raw hardware event descriptor]\n"),
            std::string::npos);
  EXPECT_NE(result.out.find(
                "  cpu/t1=v1[,t2=v2,t3 ...]/modifier                  [Raw hardware event descriptor]\n"),
            std::string::npos);
  // Every line: two spaces, the name padded to 50, a space, the kind in brackets.
  for (const auto& line : lines(result.out)) {
    ASSERT_EQ(line.rfind("  ", 0), 0u) << line;
    size_t bracket = line.rfind(" [");
    ASSERT_NE(bracket, std::string::npos) << line;
    EXPECT_GE(bracket, 52u) << line;
    EXPECT_EQ(line.back(), ']') << line;
  }
  // Every section, in perf list's order.
  size_t previous = 0;
  for (const char* section : {"[Hardware event]", "[Software event]", "[Hardware cache event]",
                              "[Raw hardware event descriptor]", "[Tracepoint event]"}) {
    size_t at = result.out.find(section);
    ASSERT_NE(at, std::string::npos) << "no " << section << " section";
    EXPECT_GT(at, previous) << section << " is out of perf's order";
    previous = at;
  }
}

TEST(List, TracepointGlobListsExactlyTracefsEvents) {
  auto result = run(sonde_bin() + " list 'sched:*'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto expected = tracefs_tracepoints("sched");
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(names_of_kind(result.out, "Tracepoint event"), expected);
  EXPECT_EQ(lines(result.out).size(), expected.size());
}

TEST(List, SubsysListsTheSubsystemsTracepoints) {
  auto result = run(sonde_bin() + " list subsys block");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto expected = tracefs_tracepoints("block");
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(names_of_kind(result.out, "Tracepoint event"), expected);
  EXPECT_EQ(lines(result.out).size(), expected.size());
}

TEST(List, SectionFilters) {
  auto sw = run(sonde_bin() + " list sw");
  ASSERT_EQ(sw.exit_code, 0);
  EXPECT_EQ(names_of_kind(sw.out, "Software event").size(), lines(sw.out).size());
  EXPECT_EQ(lines(sw.out).size(), 12u);
  auto hw = run(sonde_bin() + " list hw");
  EXPECT_EQ(names_of_kind(hw.out, "Hardware event").size(), 10u);
  auto cache = run(sonde_bin() + " list cache");
  EXPECT_EQ(names_of_kind(cache.out, "Hardware cache event").size(), 32u);
  auto pmu = run(sonde_bin() + " list pmu");
  EXPECT_EQ(names_of_kind(pmu.out, "Kernel PMU event").size(), lines(pmu.out).size());
  // A plain word is a *word* glob over every kind.
  auto word = run(sonde_bin() + " list clock");
  auto names = names_of_kind(word.out, "Software event");
  EXPECT_EQ(names, (std::vector<std::string>{"cpu-clock", "task-clock"}));
  for (const auto& line : lines(word.out)) EXPECT_NE(line.find("clock"), std::string::npos) << line;
}

TEST(List, AgreesWithPerfList) {
  if (!have_perf()) GTEST_SKIP() << "perf is not installed";
  auto perf_sw = run("perf list sw");
  auto sw = run(sonde_bin() + " list sw");
  // perf list sw adds its tool events (duration_time...), which sonde does not count.
  EXPECT_EQ(names_of_kind(sw.out, "Software event"), names_of_kind(perf_sw.out, "Software event"));
  for (const auto& line : lines(sw.out)) EXPECT_NE(perf_sw.out.find(line + "\n"), std::string::npos) << line;
  for (const char* filter : {"pmu", "tracepoint", "sched:*", "sched", "block:block_rq*", "tsc"}) {
    auto perf = run(std::string("perf list '") + filter + "'");
    auto ours = run(sonde_bin() + " list '" + filter + "'");
    EXPECT_EQ(ours.out, perf.out) << "filter " << filter;
  }
}

TEST(List, TracefsGetsMountedWhenUnmounted) {
  // Only when nothing holds tracefs: another process using it makes umount fail, and then this
  // test has nothing to show.
  if (run("umount /sys/kernel/tracing").exit_code != 0) GTEST_SKIP() << "tracefs is busy or not unmountable";
  auto result = run(sonde_bin() + " list --parse sched:sched_switch");
  bool mounted = run("grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts").exit_code == 0;
  if (!mounted) run("mount -t tracefs nodev /sys/kernel/tracing");  // leave the machine as found
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.rfind("sched:sched_switch type=2 ", 0), 0u) << result.out;
  // Once something has looked under /sys/kernel/debug/tracing, the kernel keeps a tracefs
  // mounted there too, and sonde rightly uses it instead of mounting one.
  bool under_debugfs = run("grep -q ' /sys/kernel/debug/tracing tracefs ' /proc/mounts").exit_code == 0;
  EXPECT_TRUE(mounted || under_debugfs) << "tracefs was neither mounted nor found under debugfs";
}

TEST(List, LeavesTracingStateAlone) {
  std::string before = tracing_state();
  run(sonde_bin() + " list >/dev/null");
  run(sonde_bin() + " list --parse 'sched:*,syscalls:sys_enter_*'");
  EXPECT_EQ(tracing_state(), before);
}

}  // namespace
