// The synthesized side-band against perf 6.1: a perf.data made of our kernel map, COMM/MMAP2
// (or -a's FORK/COMM/MMAP2) for a stopped demo process and a few samples in its hot_leaf must
// read in perf script, perf report and perf buildid-list without a word on stderr; and the
// side-band lines perf script prints for it must equal those of perf record -p on the same
// process.
#include "capture/sideband.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <thread>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "format/build_ids.hpp"
#include "format/synthesize.hpp"
#include "kernel/kallsyms.hpp"
#include "perfdata/machine_facts.hpp"
#include "perfdata/writer.hpp"
#include "run.hpp"

using namespace sonde;
using namespace sonde::capture;
using namespace sonde::perfdata;
using namespace sonde::test;

namespace {

// The demo workload spinning in hot_leaf, stopped once it has exec'd so its maps hold still.
class StoppedDemo {
 public:
  StoppedDemo() {
    path_ = workload("demo");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execl(path_.c_str(), "demo", "1000000000000", "1", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 5000; ++i) {
      auto comm = read_file("/proc/" + std::to_string(pid_) + "/comm");
      if (comm && *comm == "demo\n") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ::kill(pid_, SIGSTOP);
  }
  ~StoppedDemo() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  pid_t pid_ = -1;
};

uint64_t symbol_address(const std::string& binary, const std::string& name) {
  for (const auto& line : lines(run("nm " + shell_quote(binary)).out)) {
    auto fields = split(line, ' ');
    if (fields.size() == 3 && fields[2] == name) return std::stoull(fields[0], nullptr, 16);
  }
  return 0;
}

enum class Mode { kThreads, kAllTasks };

// The attr perf record uses for cpu-clock (perf evlist -v): IP|TID|TIME|PERIOD with -p, plus
// CPU and IDENTIFIER with -a; sample_id_all either way.
perf_event_attr cpu_clock_attr(Mode mode) {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.size = sizeof attr;
  attr.sample_freq = 4000;
  attr.freq = 1;
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  if (mode == Mode::kAllTasks) attr.sample_type |= PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
  attr.read_format = PERF_FORMAT_ID;
  attr.disabled = attr.inherit = attr.mmap = attr.comm = attr.task = 1;
  attr.sample_id_all = attr.exclude_guest = attr.mmap2 = attr.comm_exec = 1;
  return attr;
}

// Writes kernel maps + the side-band for `demo` + 4 samples in hot_leaf; returns the file.
std::string write_file(const StoppedDemo& demo, Mode mode, const std::string& name) {
  perf_event_attr attr = cpu_clock_attr(mode);
  std::string data;
  auto sink = append_to(data);
  auto text = kernel::find_kernel_text();
  EXPECT_TRUE(text) << text.error().message;
  auto modules = kernel::read_modules();
  EXPECT_TRUE(modules);
  if (text && modules) {
    EXPECT_TRUE(synthesize_kernel_maps(attr, *text, *modules, sink));
  }
  if (mode == Mode::kThreads) {
    auto tids = list_threads(demo.pid());
    EXPECT_TRUE(tids);
    if (tids) {
      EXPECT_TRUE(synthesize_threads(attr, *tids, {}, sink));
    }
  } else {
    EXPECT_TRUE(synthesize_all_tasks(attr, {}, sink));
  }

  // The sample ip: the load bias of demo's text mapping plus hot_leaf's link-time address.
  uint64_t ip = 0;
  std::string maps = *read_file("/proc/" + std::to_string(demo.pid()) + "/maps");
  for (const auto& map : parse_proc_maps(maps))
    if (map.name == demo.path() && map.perms[2] == 'x')
      ip = map.start - map.pgoff + symbol_address(demo.path(), "hot_leaf") + 4;
  EXPECT_NE(ip, 0u);
  for (uint64_t i = 0; i < 4; ++i) {
    SyntheticSample s;
    s.ip = ip;
    s.pid = s.tid = static_cast<uint32_t>(demo.pid());
    s.time = 1'000'000'000 + i * 250'000;
    s.period = 250000;
    s.id = 1001;
    auto bytes = make_sample(attr, s);
    EXPECT_TRUE(bytes);
    if (bytes) data += *bytes;
  }
  data += make_finished_round();

  FeatureSet features;
  fill_machine_features(gather_machine_facts(), features);
  features.version = "6.1.sonde";
  features.cmdline = std::vector<std::string>{"/usr/bin/sonde", "record"};
  features.event_desc = std::vector<EventDesc>{{attr, "cpu-clock", {1001}}};
  format::BuildIdCache cache;
  std::vector<format::DsoRef> dsos = {{"[kernel.kallsyms]", true}, {demo.path(), false}};
  features.build_ids = cache.entries(dsos);
  features.sample_time = SampleTime{1'000'000'000, 1'000'750'000};

  std::string path = temp_dir() + "/" + name;
  auto writer = PerfDataWriter::create(path);
  EXPECT_TRUE(writer) << writer.error().message;
  std::vector<AttrWithIds> attrs{{attr, {1001}}};
  EXPECT_TRUE(writer->write_attrs(attrs));
  EXPECT_TRUE(writer->append(data.data(), data.size()));
  EXPECT_TRUE(writer->finalize(features));
  return path;
}

// perf script's side-band lines (COMM, FORK, MMAP, MMAP2) that mention `pid` or the kernel map.
std::vector<std::string> sideband_lines(const std::string& script, pid_t pid) {
  std::vector<std::string> out;
  const std::string own = " " + std::to_string(pid) + "/";
  const std::string fork = "(" + std::to_string(pid) + ":";
  for (const auto& line : lines(script)) {
    if (line.find("PERF_RECORD_") == std::string::npos ||
        line.find("PERF_RECORD_SAMPLE") != std::string::npos)
      continue;
    bool kernel = line.find("[kernel.kallsyms]") != std::string::npos;
    bool ours = line.find(own) != std::string::npos ||
                line.find(":" + std::to_string(pid) + "/") != std::string::npos ||
                line.find(fork) != std::string::npos;
    if (kernel || ours) out.push_back(std::string(trim(line)));
  }
  return out;
}

std::string perf_script(const std::string& file) {
  auto script = run("perf script -i " + shell_quote(file) + " --show-task-events --show-mmap-events");
  EXPECT_EQ(script.exit_code, 0) << script.err;
  EXPECT_EQ(script.err, "");
  return script.out;
}

}  // namespace

TEST(SidebandE2E, PerfReadsOurSidebandAndResolvesSamplesToTheWorkload) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  StoppedDemo demo;
  std::string file = write_file(demo, Mode::kThreads, "threads.data");
  if (HasFailure()) return;

  std::string script = perf_script(file);
  const std::string pid = std::to_string(demo.pid());
  EXPECT_NE(script.find("PERF_RECORD_COMM: demo:" + pid + "/" + pid), std::string::npos) << script;
  EXPECT_TRUE(std::regex_search(
      script,
      std::regex(
          "PERF_RECORD_MMAP2 " + pid + "/" + pid +
          R"(: \[0x[0-9a-f]+\(0x[0-9a-f]+\) @ 0x[0-9a-f]+ [0-9a-f]+:[0-9a-f]+ [1-9][0-9]* 0\]: r-xp )" +
          demo.path())))
      << script;
  EXPECT_TRUE(std::regex_search(
      script,
      std::regex(
          R"(PERF_RECORD_MMAP -1/0: \[0x[0-9a-f]+\(0x[0-9a-f]+\) @ 0x[0-9a-f]+\]: x \[kernel.kallsyms\]_text)")))
      << script;
  EXPECT_NE(script.find("hot_leaf+0x4 (" + demo.path() + ")"), std::string::npos) << script;

  auto report = run("perf report -i " + shell_quote(file) + " --stdio --sort comm,dso,sym");
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(report.err, "");
  EXPECT_TRUE(std::regex_search(report.out, std::regex(R"(100\.00%\s+demo\s+demo\s+\[\.\] hot_leaf)")))
      << report.out;

  // perf buildid-list lists what we wrote, and it is what readelf and perf itself read.
  auto listed = run("perf buildid-list -i " + shell_quote(file));
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.err, "");
  std::smatch m;
  std::string notes = run("readelf -n " + shell_quote(demo.path())).out;
  ASSERT_TRUE(std::regex_search(notes, m, std::regex("Build ID: ([0-9a-f]+)")));
  EXPECT_NE(listed.out.find(m[1].str() + " " + demo.path()), std::string::npos) << listed.out;
  std::string kernel_id(trim(run("perf buildid-list -k").out));
  EXPECT_NE(listed.out.find(kernel_id + " [kernel.kallsyms]"), std::string::npos) << listed.out;
}

TEST(SidebandE2E, SameSidebandLinesAsPerfRecordP) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  StoppedDemo demo;
  std::string ours = write_file(demo, Mode::kThreads, "ours-p.data");
  if (HasFailure()) return;
  std::string theirs = temp_dir() + "/perf-p.data";
  auto recorded = run("perf record -q -o " + shell_quote(theirs) + " -p " + std::to_string(demo.pid()) +
                      " -- sleep 0.01");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto expected = sideband_lines(perf_script(theirs), demo.pid());
  auto got = sideband_lines(perf_script(ours), demo.pid());
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(got, expected);
}

TEST(SidebandE2E, SameSidebandLinesAsPerfRecordA) {
  if (!have_perf()) GTEST_SKIP() << "perf not installed";
  StoppedDemo demo;
  std::string ours = write_file(demo, Mode::kAllTasks, "ours-a.data");
  if (HasFailure()) return;
  std::string theirs = temp_dir() + "/perf-a.data";
  auto recorded = run("perf record -q -a -o " + shell_quote(theirs) + " -- sleep 0.01");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto expected = sideband_lines(perf_script(theirs), demo.pid());
  auto got = sideband_lines(perf_script(ours), demo.pid());
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(got, expected);

  auto report = run("perf report -i " + shell_quote(ours) + " --stdio");
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(report.err, "");
}
