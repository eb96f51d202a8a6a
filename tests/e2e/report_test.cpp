// sonde report end to end: its --stdio text against perf report's (perf 6.1, the oracle) on
// files recorded by perf and by sonde. Each recording is made once for the whole suite.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "run.hpp"

using namespace sonde::test;

namespace {

// perf ends with a random tip; everything else must agree byte for byte, except one perf bug:
// its fractal "[...]" line reads an uninitialized `inlined` flag and sometimes says
// "[...] (inlined)".
std::string without_tip(const std::string& text) {
  std::string kept;
  for (auto line : lines(text)) {
    if (line.rfind("# (Tip:", 0) == 0) continue;
    if (auto at = line.find("[...] (inlined)"); at != std::string::npos) line.erase(at + 5);
    kept += line + "\n";
  }
  return kept;
}

class ReportFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!have_perf()) return;
    dir_ = temp_dir() + "/report";
    run("mkdir -p " + dir_);
    std::string demo = workload("demo");
    // User-space callchains keep the comparison about the report, not about kernel symbols.
    record("perf_fp", "perf record -q -e cpu-clock:u -F 2999 -g -o @ -- " + demo + " 150000 3");
    record("sonde_fp", sonde_bin() + " record -q -e cpu-clock:u -F 2999 -g -o @ -- " + demo + " 150000 3");
    record("perf_threads",
           "perf record -q -e cpu-clock:u -F 1999 -g -o @ -- " + workload("deep_stacks") + " hot 0.3 2");
    record("sonde_threads", sonde_bin() + " record -q -e cpu-clock:u -F 1999 -g -o @ -- " +
                                workload("deep_stacks") + " hot 0.3 2");
    record("perf_events",
           "perf record -q -e cpu-clock:u,task-clock:u -F 999 -g -o @ -- " + demo + " 100000 2");
    record("sonde_events",
           sonde_bin() + " record -q -e cpu-clock:u,task-clock:u -F 999 -g -o @ -- " + demo + " 100000 2");
    record("perf_exec",
           "perf record -q -e cpu-clock:u -F 1999 -g -o @ -- sh -c 'exec " + demo + " 100000 2'");
    record("sonde_exec",
           sonde_bin() + " record -q -e cpu-clock:u -F 1999 -g -o @ -- sh -c 'exec " + demo + " 100000 2'");
    record("perf_dwarf",
           "perf record -q -e cpu-clock:u --call-graph dwarf -F 999 -o @ -- " + demo + " 100000 2");
    record("sonde_dwarf",
           sonde_bin() + " record -q -e cpu-clock:u --call-graph dwarf -F 999 -o @ -- " + demo + " 100000 2");
    record("perf_system", "perf record -q -a -e cpu-clock:u -F 499 -g -o @ -- " + demo + " 100000 2");
    record("sonde_system",
           sonde_bin() + " record -q -a -e cpu-clock:u -F 499 -g -o @ -- " + demo + " 100000 2");
    record("perf_tracepoint", "perf record -q -e syscalls:sys_enter_write -g -o @ -- " + demo + " 20000 20");
    record("sonde_tracepoint",
           sonde_bin() + " record -q -e syscalls:sys_enter_write -g -o @ -- " + demo + " 20000 20");
    std::string two_tracepoints =
        " record -q -e sched:sched_switch -e syscalls:sys_enter_write -o @ -- " + workload("writes") + " 200";
    record("perf_two_tracepoints", "perf" + two_tracepoints);
    record("sonde_two_tracepoints", sonde_bin() + two_tracepoints);
  }
  static void record(const std::string& name, std::string command) {
    std::string path = dir_ + "/" + name + ".data";
    command.replace(command.find('@'), 1, path);
    auto result = run(command + " > /dev/null");
    if (result.exit_code == 0)
      files_[name] = path;
    else
      failures_[name] = result.err;
  }
  void SetUp() override {
    if (!have_perf()) GTEST_SKIP() << "perf (the oracle) is not installed";
  }
  std::string file(const std::string& name) {
    if (!files_.count(name)) ADD_FAILURE() << "recording " << name << " failed: " << failures_[name];
    return files_.count(name) ? files_[name] : "/nonexistent";
  }
  // sonde report and perf report --stdio with the same options on one file must agree.
  void expect_same(const std::string& name, const std::string& options) {
    std::string path = file(name);
    auto ours = run(sonde_bin() + " report -i " + path + " " + options);
    // sonde's -g folded-perf is perf's own -g folded (sonde's -g folded is stackcollapse-perf.pl's).
    std::string perf_options = options;
    if (auto at = perf_options.find("folded-perf"); at != std::string::npos)
      perf_options.replace(at, 11, "folded");
    auto theirs = run("perf report --stdio -i " + path + " " + perf_options);
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
    EXPECT_EQ(without_tip(ours.out), without_tip(theirs.out))
        << "file " << name << ", options '" << options << "'";
  }
  static std::string dir_;
  static std::map<std::string, std::string> files_, failures_;
};
std::string ReportFiles::dir_;
std::map<std::string, std::string> ReportFiles::files_, ReportFiles::failures_;

const char* const kOptionSets[] = {
    "",                              // perf's default: children, graph,0.5,caller
    "--no-children",                 // self only, callee graph
    "-g caller --no-children",       // caller-based trees
    "-g callee",                     // callee-based trees under children
    "-g fractal",                    // relative percentages and [...] remainders
    "-g flat --no-children",         //
    "-g folded-perf --no-children",  // perf's per-entry folded layout
    "-g none",                       // no call graph
    "-n --show-total-period",        // Samples and Period columns
    "-s comm,dso",                   //
    "-s pid",                        //
    "-s sym",                        // sort by symbol first: the graph skips the entry's own name
    "--percent-limit 5",             // entries and call-graph parts below 5% hidden
    "--no-children -g caller,0.1",
    "--max-stack 3",
    "-g graph,0.5,callee,function,period",
    "--comm demo",  // one comm: its column is elided and named in the header
};

}  // namespace

TEST_F(ReportFiles, PerfFramePointerRecordingMatchesPerf) {
  for (const char* options : kOptionSets) expect_same("perf_fp", options);
}

TEST_F(ReportFiles, SondeFramePointerRecordingMatchesPerf) {
  for (const char* options : kOptionSets) expect_same("sonde_fp", options);
}

// -g folded prints stackcollapse-perf.pl's lines, as sonde collapse does, not perf's layout.
TEST_F(ReportFiles, FoldedIsWhatCollapsePrints) {
  for (const char* name : {"perf_fp", "sonde_fp", "perf_dwarf", "sonde_dwarf"}) {
    std::string path = file(name);
    auto folded = run(sonde_bin() + " report -g folded -i " + path);
    auto collapsed = run(sonde_bin() + " collapse " + path);
    ASSERT_EQ(folded.exit_code, 0) << folded.err;
    ASSERT_EQ(collapsed.exit_code, 0) << collapsed.err;
    ASSERT_FALSE(collapsed.out.empty()) << name;
    EXPECT_EQ(folded.out, collapsed.out) << name;
    ASSERT_FALSE(folded.out.empty()) << name;
    EXPECT_EQ(lines(folded.out)[0].rfind("demo;", 0), 0u) << folded.out;  // comm;caller;...;leaf count
  }
  auto filtered = run(sonde_bin() + " report -g folded --comm demo -i " + file("sonde_fp"));
  EXPECT_NE(filtered.exit_code, 0);
  EXPECT_EQ(lines(filtered.err).size(), 1u) << filtered.err;
}

// Where two threads' chains tie exactly, perf orders the siblings by the addresses of its DSO
// objects in memory, which nothing outside perf can know: the threaded files are compared
// without call graphs (entries, periods, order and columns still must agree).
TEST_F(ReportFiles, MultiThreadedRecordingsMatchPerf) {
  for (const char* options :
       {"-g none", "--no-children -g none", "-s pid -g none", "-n -s comm,dso -g none"}) {
    expect_same("perf_threads", options);
    expect_same("sonde_threads", options);
  }
}

TEST_F(ReportFiles, SeveralEventsGetOneSectionEach) {
  for (const char* options : {"", "--no-children -n"}) {
    expect_same("perf_events", options);
    expect_same("sonde_events", options);
  }
  auto ours = run(sonde_bin() + " report -i " + file("sonde_events"));
  EXPECT_NE(ours.out.find("of event 'cpu-clock:u'"), std::string::npos) << ours.out;
  EXPECT_NE(ours.out.find("of event 'task-clock:u'"), std::string::npos) << ours.out;
}

TEST_F(ReportFiles, WorkloadThatExecsMatchesPerf) {
  for (const char* options : {"", "--no-children", "-s comm,dso"}) {
    expect_same("perf_exec", options);
    expect_same("sonde_exec", options);
  }
}

// perf sorts tracepoint-only files by their formatted payload ("trace") by default; sonde does
// not have that key yet, so these name perf's usual keys.
TEST_F(ReportFiles, TracepointRecordingsMatchPerf) {
  for (const char* options : {"--no-children -s comm,dso,sym", "-s comm,dso,sym", "--no-children -s comm -n",
                              "-s comm,dso,sym -g caller --no-children"}) {
    expect_same("perf_tracepoint", options);
    expect_same("sonde_tracepoint", options);
  }
}

TEST_F(ReportFiles, TraceSortKeyMatchesPerf) {
  // A file of tracepoints only sorts by payload ("Trace output") unless told otherwise; other
  // events show N/A under the key. perf sizes the column from the payloads it compared.
  for (const char* options :
       {"", "--no-children", "-g none", "-s trace,comm -n", "-s comm,trace --no-children"}) {
    expect_same("perf_tracepoint", options);
    expect_same("sonde_tracepoint", options);
  }
  for (const char* options : {"", "-s comm,trace", "-s trace,pid", "-s cpu,trace"}) {
    expect_same("perf_two_tracepoints", options);
    expect_same("sonde_two_tracepoints", options);
  }
  expect_same("perf_fp", "-s comm,trace --no-children");
}

// perf shows each frame of a DWARF unwind as its inline chain, named by DWARF: "(inlined)"
// frames, and libc's __libc_start_main as "__libc_start_main_impl (inlined)".
TEST_F(ReportFiles, DwarfRecordingsMatchPerf) {
  for (const char* options : {"", "--no-children", "-g caller --no-children", "-g callee", "-g none",
                              "-g caller,0.01 --no-children", "--percent-limit 0.01 -g callee,0.01",
                              "--no-children --max-stack 4"}) {
    expect_same("perf_dwarf", options);
    expect_same("sonde_dwarf", options);
  }
}

// Whole-system recordings hold whatever else ran (compilers with broken frame-pointer chains
// whose garbage addresses tie in ways perf orders by allocation addresses): compare the demo.
TEST_F(ReportFiles, SystemWideRecordingsMatchPerf) {
  for (const char* options :
       {"--comm demo --no-children", "--comm demo -g none", "--comm demo -n --no-children -g none"}) {
    expect_same("perf_system", options);
    expect_same("sonde_system", options);
  }
}

TEST_F(ReportFiles, HotPathOfTheDemoIsFound) {
  auto ours = run(sonde_bin() + " report --no-children -g caller -i " + file("sonde_fp"));
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  // The top entry is hot_leaf, and its caller-based chain runs main -> run -> work -> hot_leaf.
  auto text = lines(ours.out);
  size_t top = 0;
  while (top < text.size() && (text[top].empty() || text[top][0] == '#')) ++top;
  ASSERT_LT(top, text.size());
  EXPECT_NE(text[top].find("[.] hot_leaf"), std::string::npos) << ours.out;
  auto main_at = ours.out.find("main\n", ours.out.find(text[top]));
  auto run_at = ours.out.find("run\n", main_at);
  auto work_at = ours.out.find("work\n", run_at);
  auto leaf_at = ours.out.find("hot_leaf\n", work_at);
  EXPECT_NE(leaf_at, std::string::npos) << ours.out;
}

TEST_F(ReportFiles, FiltersHideEntriesButKeepTotals) {
  expect_same("perf_fp", "--no-children --dso demo");
  expect_same("perf_fp", "--no-children --symbols hot_leaf,work");
  auto ours = run(sonde_bin() + " report -i " + file("perf_fp") + " --comm nosuchcomm");
  ASSERT_EQ(ours.exit_code, 0);
  EXPECT_NE(ours.out.find("# comm: nosuchcomm"), std::string::npos) << ours.out;
  EXPECT_EQ(ours.out.find("%  "), std::string::npos) << "no entry may show:\n" << ours.out;
}

TEST_F(ReportFiles, HeaderOnlyMatchesPerf) {
  for (const char* name : {"perf_fp", "sonde_fp", "perf_events", "sonde_events", "sonde_tracepoint"})
    expect_same(name, "--header-only");
  expect_same("sonde_fp", "--header --no-children");
}

TEST_F(ReportFiles, SourceLinesAndCountsMatchPerf) {
  expect_same("perf_fp", "--no-children -s srcline");
  expect_same("perf_fp", "--no-children -g fractal,0.5,caller,function,count");
}
