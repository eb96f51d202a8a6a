// sonde script against perf script, line for line, on files recorded by perf and by sonde.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/strings.hpp"
#include "run.hpp"

using namespace sonde;
using namespace sonde::test;

namespace {

// One recording per kind of file the issue names, made once by each recorder.
struct Recording {
  std::string name;
  std::string options;  // what follows "record"
};

std::vector<Recording> recordings() {
  std::string demo = workload("demo"), writes = workload("writes");
  return {
      {"fp", "-F 999 -g -- " + demo + " 40000 3"},
      {"tracepoint", "-e syscalls:sys_enter_write -- " + writes + " 20 1 2 1"},
      {"switch", "-e sched:sched_switch -a -- sleep 0.1"},
      {"events", "-e cpu-clock -e page-faults -F 999 -- " + demo + " 40000 3"},
      {"system", "-a -g -F 499 -- sleep 0.2"},
      {"threads", "-F 1999 -g -- " + writes + " 20000 256 2 1"},
      {"exec", "-F 999 -g -- sh -c " + shell_quote("exec " + demo + " 30000 2")},
  };
}

class Script : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!have_perf()) return;
    for (const Recording& recording : recordings()) {
      for (const std::string recorder : {"perf", "sonde"}) {
        std::string path = temp_dir() + "/script-" + recorder + "-" + recording.name + ".data";
        std::string binary = recorder == "perf" ? std::string("perf") : sonde_bin();
        auto recorded = run(binary + " record -q -o " + path + " " + recording.options + " >/dev/null");
        ASSERT_EQ(recorded.exit_code, 0) << recorder << " " << recording.name << ": " << recorded.err;
        files_[recorder + "/" + recording.name] = path;
      }
    }
  }
  void SetUp() override {
    if (!have_perf()) GTEST_SKIP() << "perf (the oracle) is not installed";
  }

  static std::vector<std::string> all_files() {
    std::vector<std::string> keys;
    for (const auto& [key, path] : files_) keys.push_back(key);
    return keys;
  }
  static const std::string& file(const std::string& key) { return files_.at(key); }

  // Runs both on `key`'s file with `options`; they must print the same bytes, and perf must
  // have printed something (so the comparison means something).
  // `as_perf`, when given, rewrites each of sonde's lines where it differs from perf on purpose.
  static void expect_same(const std::string& key, const std::string& options, size_t min_lines = 1,
                          const std::function<std::string(std::string)>& as_perf = nullptr) {
    std::string args = " script -i " + file(key) + " " + options;
    auto theirs = run("perf" + args);
    auto ours = run(sonde_bin() + args);
    ASSERT_EQ(theirs.exit_code, 0) << "perf" << args << "\n" << theirs.err;
    ASSERT_EQ(ours.exit_code, 0) << "sonde" << args << "\n" << ours.err;
    auto want = split(theirs.out, '\n'), got = split(ours.out, '\n');
    if (as_perf)
      for (std::string& line : got) line = as_perf(line);
    EXPECT_GE(want.size(), min_lines) << "perf" << args << " printed too little to compare";
    for (size_t i = 0; i < std::min(want.size(), got.size()); ++i) {
      if (want[i] != got[i]) {
        ADD_FAILURE() << key << ": sonde" << args << "\nfirst difference at line " << i + 1
                      << "\n perf:  " << want[i] << "\n sonde: " << got[i];
        return;
      }
    }
    EXPECT_EQ(want.size(), got.size()) << key << ": sonde" << args << " printed a different number of lines";
  }

  // Both read the pipe-mode stream at `stream` from standard input and print the same bytes.
  static void expect_same_from_stdin(const std::string& stream, const std::string& options,
                                     size_t min_lines) {
    auto theirs = run("perf script " + options + " -i - <" + stream);
    auto ours = run(sonde_bin() + " script " + options + " -i - <" + stream);
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    EXPECT_GT(lines(theirs.out).size(), min_lines);
    EXPECT_EQ(ours.out, theirs.out);
  }

  static std::map<std::string, std::string> files_;
};

std::map<std::string, std::string> Script::files_;

// A time between the file's first and last sample, as perf prints times.
std::string middle_time(const std::string& path) {
  auto times = lines(run("perf script -F time -i " + path).out);
  if (times.empty()) return "";
  std::string text(trim(times[times.size() / 2]));
  if (!text.empty() && text.back() == ':') text.pop_back();
  return text;
}

}  // namespace

TEST_F(Script, DefaultOutputMatchesPerf) {
  for (const std::string& key : all_files()) expect_same(key, "", 2);
}

TEST_F(Script, TaskAndMmapEventsMatchPerf) {
  for (const std::string recorder : {"perf/", "sonde/"})
    for (const std::string name : {"fp", "threads", "exec", "switch"})
      expect_same(recorder + name, "--show-task-events --show-mmap-events", 3);
}

TEST_F(Script, SwitchAndLostEventsMatchPerf) {
  for (const std::string key : {"perf/switch", "sonde/switch", "perf/system", "sonde/system"})
    expect_same(key, "--show-switch-events --show-lost-events", 2);
}

TEST_F(Script, FieldSelectionsMatchPerf) {
  expect_same("perf/fp", "-F comm,pid,tid,time,event,ip,sym,dso", 10);
  expect_same("perf/fp", "-F -period,+pid", 10);
  expect_same("perf/fp", "-F ip,sym,symoff", 10);
  expect_same("perf/fp", "-F sw:comm,tid,ip,dso", 10);
  expect_same("perf/fp", "-F +flags", 10);
  expect_same("perf/events", "-F comm,tid,period,event,ip,sym", 5);
  expect_same("perf/tracepoint", "-F comm,pid,tid,cpu,time,event,trace", 10);
  expect_same("sonde/system", "-F comm,pid,tid,cpu,time,ip,sym", 10);
  expect_same("sonde/tracepoint", "-F trace:comm,tid,trace", 10);
  expect_same("sonde/switch", "-F cpu,time,trace", 10);
}

TEST_F(Script, FiltersMatchPerf) {
  for (const std::string recorder : {"perf/", "sonde/"}) {
    std::string system = recorder + "system";
    std::string middle = middle_time(file(system));
    ASSERT_FALSE(middle.empty());
    expect_same(system, "--time " + middle + ",", 2);
    // CPU 1 of a short quiet system-wide recording may hold only side-band: compare what there is.
    expect_same(system, "-C 1 --show-task-events", 1);
  }
  expect_same("perf/system", "--time ," + middle_time(file("perf/system")), 2);
  expect_same("perf/threads", "--comm writes", 2);
  expect_same("sonde/switch", "--comm swapper", 1);
  expect_same("perf/tracepoint", "--pid 1,2 --show-task-events", 1);
  expect_same("perf/fp", "--ns", 10);
  expect_same("sonde/fp", "-G", 10);
  expect_same("perf/system", "--max-stack 2", 10);
}

TEST_F(Script, PidAndTidFiltersMatchPerf) {
  // The threads file's workload runs a main thread, two more threads and a child process.
  for (const std::string recorder : {"perf/", "sonde/"}) {
    std::string key = recorder + "tracepoint";
    SCOPED_TRACE(key);
    auto pids = lines(run("perf script -F pid,tid -i " + file(key)).out);
    ASSERT_FALSE(pids.empty());
    auto ids = split(std::string(trim(pids.back())), '/');
    ASSERT_EQ(ids.size(), 2u) << pids.back();
    expect_same(key, "--pid " + std::string(trim(ids[0])), 1);
    expect_same(key, "--tid " + std::string(trim(ids[1])), 1);
  }
}

TEST_F(Script, SourceLinesOfTheHotPathMatchPerf) {
  // The demo's own frames (hot_leaf, work, run, main): within four frames of the leaf. A sample
  // in main or run reaches libc's startup, where sonde names the header the DWARF line table
  // names and perf (binutils 2.40's addr2line) the CU's file: README's deliberate difference.
  auto as_perf = [](std::string line) {
    if (size_t at = line.find("libc_start_call_main.h:"); at != std::string::npos)
      line.replace(at, std::string("libc_start_call_main.h").size(), "libc-start.c");
    return line;
  };
  for (const std::string recorder : {"perf/", "sonde/"})
    expect_same(recorder + "fp", "-F ip,sym,srcline --max-stack 4 --comm demo", 10, as_perf);
}

TEST_F(Script, HeaderMatchesPerf) {
  for (const std::string key : {"perf/fp", "sonde/fp", "perf/switch", "sonde/tracepoint"})
    expect_same(key, "--header-only", 15);
  expect_same("perf/events", "--header", 20);
}

TEST_F(Script, PipeModeMatchesPerf) {
  // perf writes a pipe-mode stream; both read it from standard input.
  std::string stream = temp_dir() + "/script-pipe.data";
  auto recorded =
      run("perf record -q -o - -F 999 -g " + workload("demo") + " 30000 2 >" + stream + " 2>/dev/null");
  ASSERT_EQ(recorded.exit_code, 0);
  expect_same_from_stdin(stream, "", 10);
}

TEST_F(Script, RawDumpMatchesPerf) {
  // -D: every record in hex and as perf reads it, with the script lines between, byte for byte.
  for (const std::string& key : all_files()) expect_same(key, "-D", 50);
  expect_same("perf/system",
              "-D --show-task-events --show-mmap-events --show-switch-events --show-lost-events", 50);
  expect_same("sonde/system", "-D -C 0 --show-task-events", 20);
  expect_same("perf/tracepoint", "-D -F comm,tid,trace", 20);
}

TEST_F(Script, RawDumpOfDwarfAndPipeMatchesPerf) {
  // DWARF samples dump their registers and the stack copy's size; a pipe counts offsets from
  // the end of its header and dumps its headers as records.
  std::string dwarf = temp_dir() + "/script-dump-dwarf.data";
  auto recorded = run("perf record -q -o " + dwarf + " --call-graph dwarf,2048 -F 199 " + workload("demo") +
                      " 20000 1 >/dev/null 2>&1");
  ASSERT_EQ(recorded.exit_code, 0);
  files_["perf/dump-dwarf"] = dwarf;
  expect_same("perf/dump-dwarf", "-D", 50);
  std::string stream = temp_dir() + "/script-dump-pipe.data";
  recorded =
      run("perf record -q -o - -F 999 -g " + workload("demo") + " 20000 1 >" + stream + " 2>/dev/null");
  ASSERT_EQ(recorded.exit_code, 0);
  expect_same_from_stdin(stream, "-D", 100);
}
