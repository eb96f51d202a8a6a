// sonde ftrace report against trace-cmd report 3.1.6, on a trace.dat that trace-cmd itself
// extracted from a tracefs instance of the test's own, and on that trace rewritten by sonde's
// writer (the round trip: trace-cmd must read sonde's file as it reads its own).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "kernel/tracefs.hpp"
#include "run.hpp"
#include "tracedat/reader.hpp"
#include "tracedat/writer.hpp"

using namespace sonde;
using namespace sonde::test;

namespace {

constexpr int kWrites = 300;

// A tracefs instance of the test's own: events off and the instance gone when it goes out of
// scope, whatever happened in between (trace-cmd extract may remove it first).
class TraceInstance {
 public:
  explicit TraceInstance(std::string root)
      : name_("sonde-test-" + std::to_string(::getpid())), dir_(root + "/instances/" + name_) {
    made_ = ::mkdir(dir_.c_str(), 0755) == 0;
  }
  ~TraceInstance() {
    if (!made_ || !is_directory(dir_)) return;
    (void)write_file(dir_ + "/events/enable", "0");
    for (int attempt = 0; attempt < 50 && ::rmdir(dir_.c_str()) != 0 && errno == EBUSY; ++attempt)
      ::usleep(20000);
  }
  TraceInstance(const TraceInstance&) = delete;
  TraceInstance& operator=(const TraceInstance&) = delete;

  bool made() const { return made_; }
  const std::string& name() const { return name_; }
  Result<void> enable(const std::string& event) {
    return write_file(dir_ + "/events/" + event + "/enable", "1");
  }
  Result<void> disable_all() { return write_file(dir_ + "/events/enable", "0"); }

 private:
  std::string name_, dir_;
  bool made_ = false;
};

struct Files {
  std::string trace_cmd_made;  // by trace-cmd extract -B: the events are in an instance buffer
  std::string instance;        // that buffer's name, trace-cmd's line prefix
  std::string rewritten;       // the same events rewritten by sonde into the top buffer
  std::string skip_reason;
  std::string state_before;
};

// Rewrites the instance buffer's events through the reader and the writer.
Result<void> rewrite(const std::string& from, const std::string& to) {
  auto reader = tracedat::TraceDatReader::open(from);
  if (!reader) return tl::unexpected(reader.error());
  tracedat::TraceDatContents contents = (*reader)->contents();
  const auto& buffer = (*reader)->buffers().back();
  for (const auto& cpu : buffer.cpus) {
    std::string path = to + ".cpu" + std::to_string(cpu.cpu);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(cpu.pages.data()),
              static_cast<std::streamsize>(cpu.pages.size()));
    if (!out) return failf("cannot write {}", path);
    contents.cpus.push_back({cpu.cpu, path});
  }
  return tracedat::write_trace_dat(to, contents);
}

const Files& files() {
  static const Files made = [] {
    Files f;
    if (run("command -v trace-cmd").exit_code != 0) {
      f.skip_reason = "trace-cmd (the oracle) is not installed";
      return f;
    }
    auto root = kernel::tracefs_root();
    if (!root) {
      f.skip_reason = root.error().message;
      return f;
    }
    f.state_before = tracing_state();
    f.trace_cmd_made = temp_dir() + "/trace-cmd-made.dat";
    f.rewritten = temp_dir() + "/rewritten.dat";
    {
      TraceInstance instance(*root);
      if (!instance.made()) {
        f.skip_reason = "cannot make a tracefs instance";
        return f;
      }
      f.instance = instance.name();
      for (const char* event : {"sched/sched_switch", "syscalls/sys_enter_write", "sched/sched_process_exec"})
        if (auto r = instance.enable(event); !r) {
          f.skip_reason = r.error().message;
          return f;
        }
      run(workload("writes") + " " + std::to_string(kWrites));
      (void)instance.disable_all();
      auto extracted = run("trace-cmd extract -B " + instance.name() + " -o " + f.trace_cmd_made);
      if (extracted.exit_code != 0) {
        f.skip_reason = "trace-cmd extract failed: " + extracted.err;
        return f;
      }
    }
    if (auto r = rewrite(f.trace_cmd_made, f.rewritten); !r)
      f.rewritten = "rewrite failed: " + r.error().message;
    return f;
  }();
  return made;
}

class FtraceReport : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!files().skip_reason.empty()) GTEST_SKIP() << files().skip_reason;
  }
};

std::string sonde_report(const std::string& options, const std::string& file) {
  auto result = run(sonde_bin() + " ftrace report " + options + " -i " + file);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  return result.out;
}

std::string trace_cmd_report(const std::string& options, const std::string& file) {
  // trace-cmd 3.1.6 takes -F only before -i.
  auto result = run("trace-cmd report " + options + " -i " + file);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

}  // namespace

TEST_F(FtraceReport, ReadsTraceCmdFileAsTraceCmdReportPrintsIt) {
  const auto& f = files();
  for (const char* options : {"", "-t", "--stat"}) {
    std::string theirs = trace_cmd_report(options, f.trace_cmd_made);
    EXPECT_EQ(sonde_report(options, f.trace_cmd_made), theirs) << "options: " << options;
  }
  // The workload's writes are all there, each on an instance line.
  std::string text = sonde_report("", f.trace_cmd_made);
  int writes = 0;
  for (const auto& line : lines(text))
    if (line.rfind(f.instance + ": ", 0) == 0 && line.find(" writes-") != std::string::npos &&
        line.find("sys_enter_write:") != std::string::npos &&
        line.find("count: 0x00000001") != std::string::npos)
      ++writes;
  EXPECT_EQ(writes, kWrites) << text.substr(0, 2000);
}

TEST_F(FtraceReport, TraceCmdReadsSondesRewriteAsItsOwnFile) {
  const auto& f = files();
  ASSERT_EQ(f.rewritten.find("rewrite failed"), std::string::npos) << f.rewritten;
  // The rewrite keeps the events in the top buffer: trace-cmd prints them without the
  // instance prefix, otherwise identically.
  std::string original = trace_cmd_report("", f.trace_cmd_made);
  std::string expected;
  for (const auto& line : lines(original)) {
    std::string prefix = f.instance + ": ";
    expected += (line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line) + "\n";
  }
  auto rewritten = run("trace-cmd report -i " + f.rewritten);
  ASSERT_EQ(rewritten.exit_code, 0) << rewritten.err;
  EXPECT_EQ(rewritten.err, "") << "trace-cmd complained about sonde's trace.dat";
  EXPECT_EQ(rewritten.out, expected);
  EXPECT_GT(lines(expected).size(), static_cast<size_t>(kWrites));
}

TEST_F(FtraceReport, OptionsPrintWhatTraceCmdPrints) {
  const auto& f = files();
  for (const char* options :
       {"", "-t", "--cpu 0", "--cpu 1", "--cpu 0,1", "-F sched_switch", "-F 'sys_enter_write: fd == 1'",
        "-F 'sched_switch: prev_state == 0' -F sched_process_exec", "--stat"}) {
    std::string theirs = trace_cmd_report(options, f.rewritten);
    EXPECT_EQ(sonde_report(options, f.rewritten), theirs) << "options: " << options;
  }
}

TEST_F(FtraceReport, BadFilesAreOneLineErrors) {
  const auto& f = files();
  std::string dir = temp_dir();
  auto whole = read_file(f.trace_cmd_made);
  ASSERT_TRUE(whole);
  {
    std::ofstream(dir + "/truncated.dat", std::ios::binary)
        .write(whole->data(), static_cast<std::streamsize>(whole->size() / 2));
    std::ofstream(dir + "/text.dat") << "not a trace\n";
  }
  struct Case {
    std::string args, message;
  };
  for (const auto& c :
       {Case{"-i " + dir + "/missing.dat", "cannot open"},
        Case{"-i " + dir + "/text.dat", "is not a trace.dat file"},
        Case{"-i " + dir + "/truncated.dat", "truncated"},
        Case{"-i " + f.rewritten + " -F 'sched_switch: prev_pid =='", "has nothing on its right"},
        Case{"-i " + f.rewritten + " --cpu x", "--cpu"}}) {
    auto result = run(sonde_bin() + " ftrace report " + c.args);
    EXPECT_NE(result.exit_code, 0) << c.args;
    EXPECT_LT(result.exit_code, 128) << c.args << ": killed by a signal";
    EXPECT_NE(result.err.find(c.message), std::string::npos) << c.args << ": " << result.err;
    EXPECT_EQ(lines(result.err).size(), 1u) << result.err;
  }
}

TEST_F(FtraceReport, TracingStateIsAsBefore) { EXPECT_EQ(tracing_state(), files().state_before); }
