// The symbols layer on real recordings, with perf 6.1 as the oracle: perf records a workload,
// the session replays the file, the Symbolizer names every sampled address, and the result must
// equal perf script's "sym+off" for the same samples in the same order.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "run.hpp"
#include "session/session.hpp"
#include "symbols/symbolizer.hpp"

using namespace sonde;
using namespace sonde::test;

namespace {

class SymbolsAgainstPerf : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_perf()) GTEST_SKIP() << "perf (the oracle) is not installed";
    dir_ = temp_dir() + "/symbols-" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    run("rm -rf " + dir_ + " && mkdir -p " + dir_);
  }
  void TearDown() override { run("rm -rf " + dir_); }
  std::string dir_;
};

// "sym+0xoff (dso)" per sample and callchain entry as perf script prints them after the ip,
// "[unknown]" without a symbol. (perf 6.1 prints callchain ips of user frames relative to their
// map; that is the script command's business, not the symbols'.)
struct SampleNamer : session::SessionVisitor {
  explicit SampleNamer(symbols::Symbolizer& s) : symbolizer(s) {}
  void on_sample(const session::SampleEvent& sample) override {
    for (const session::Location& frame : sample.callchain) names.push_back(name(frame));
  }
  std::string name(const session::Location& frame) {
    std::string text = "[unknown]";
    if (frame.dso != nullptr) {
      if (const symbols::Symbol* symbol = symbolizer.find(*frame.dso, frame.dso_address)) {
        uint64_t offset = symbolizer.elf_address(*frame.dso, frame.dso_address) - symbol->start;
        text = fmt::format("{}+{:#x}", symbol->name, offset);
      }
      text += " (" + frame.dso->long_name + ")";
    } else {
      text += " ([unknown])";
    }
    return text;
  }
  symbols::Symbolizer& symbolizer;
  std::vector<std::string> names;
};

std::vector<std::string> perf_names(const std::string& data) {
  auto script = run("perf script -i " + data + " -F ip,sym,symoff,dso 2>/dev/null");
  std::vector<std::string> out;
  for (const std::string& line : lines(script.out)) {
    size_t ip = line.find_first_not_of(" \t");
    if (ip == std::string::npos) continue;
    size_t after_ip = line.find(' ', ip);
    if (after_ip != std::string::npos) out.push_back(line.substr(after_ip + 1));
  }
  return out;
}

std::vector<std::string> our_names(const std::string& data, symbols::Symbolizer& symbolizer) {
  auto session = session::Session::open(data);
  EXPECT_TRUE(session) << (session ? "" : session.error().message);
  if (!session) return {};
  SampleNamer namer(symbolizer);
  auto processed = session->process(namer);
  EXPECT_TRUE(processed) << (processed ? "" : processed.error().message);
  return namer.names;
}

symbols::SymbolizerOptions options() {
  symbols::SymbolizerOptions o;
  o.buildid_dir = "/nonexistent-sonde-buildid-dir";
  o.debuginfod = false;
  return o;
}

size_t count_containing(const std::vector<std::string>& names, const std::string& needle) {
  return static_cast<size_t>(std::count_if(
      names.begin(), names.end(), [&](const std::string& n) { return n.find(needle) != std::string::npos; }));
}

size_t count_starting(const std::vector<std::string>& names, const std::string& prefix) {
  return static_cast<size_t>(
      std::count_if(names.begin(), names.end(), [&](const std::string& n) { return n.starts_with(prefix); }));
}

}  // namespace

// Records `command` with perf and checks that every sample names as perf script names it.
static std::vector<std::string> expect_names_as_perf(
    const std::string& data, const std::string& command,
    const std::string& recorder = "perf record -q --no-buildid-cache") {
  auto recorded = run(recorder + " -o " + data + " -- " + command);
  EXPECT_EQ(recorded.exit_code, 0) << recorded.err;
  auto expected = perf_names(data);
  symbols::Symbolizer symbolizer(options());
  auto ours = our_names(data, symbolizer);
  EXPECT_EQ(ours.size(), expected.size());
  for (size_t i = 0; i < std::min(ours.size(), expected.size()); ++i)
    EXPECT_EQ(ours[i], expected[i]) << "sample " << i;
  return ours;
}

TEST_F(SymbolsAgainstPerf, CxxWorkloadSamplesNameAsPerfNamesThem) {
  auto ours = expect_names_as_perf(dir_ + "/cxx.data", workload("cxx_shapes") + " 1500");
  EXPECT_GT(count_containing(ours, "geo::Box<long>::spin+0x"), ours.size() / 2);
}

TEST_F(SymbolsAgainstPerf, DemoSamplesWithKernelAndLibrariesNameAsPerfNamesThem) {
  auto ours = expect_names_as_perf(dir_ + "/demo.data", workload("demo") + " 100000 20");
  EXPECT_GT(count_containing(ours, "hot_leaf+0x"), ours.size() / 2);
}

TEST_F(SymbolsAgainstPerf, CallchainsOfASondeRecordingNameAsPerfNamesThem) {
  auto ours = expect_names_as_perf(dir_ + "/sonde.data", workload("demo") + " 100000 10",
                                   sonde_bin() + " record -q -g");
  EXPECT_GT(count_starting(ours, "main+0x"), 100u);
  EXPECT_GT(count_starting(ours, "work+0x"), 100u);
}

TEST_F(SymbolsAgainstPerf, CallchainsOfAPerfRecordingNameAsPerfNamesThem) {
  auto ours = expect_names_as_perf(dir_ + "/perf-g.data", workload("cxx_shapes") + " 1000",
                                   "perf record -q -g --no-buildid-cache");
  EXPECT_GT(count_starting(ours, "main+0x"), 100u);  // area's call of spin is a tail call
  EXPECT_GT(count_starting(ours, "__libc_start_call_main+0x"), 100u);
}

// Rust, both manglings: perf 6.1 prints "r::Foo<T>::spin" (legacy, hash dropped) and
// "<r::Foo<u64>>::spin" (v0).
TEST_F(SymbolsAgainstPerf, RustSymbolsDemangleAsPerfPrintsThem) {
  std::string rustc = run("PATH=$PATH:$HOME/.cargo/bin command -v rustc").out;
  if (rustc.empty()) GTEST_SKIP() << "no rustc on this machine";
  rustc.pop_back();
  std::string source =
      std::filesystem::path(__FILE__).parent_path().parent_path() / "workloads" / "rust_shapes.rs";
  for (const char* mangling : {"legacy", "v0"}) {
    std::string binary = dir_ + "/rust_" + mangling;
    // Legacy is rustc's default (asking for it by name is unstable).
    std::string flags = std::string(mangling) == "v0" ? " -C symbol-mangling-version=v0" : "";
    auto built = run(rustc + " -O -g" + flags + " " + source + " -o " + binary);
    ASSERT_EQ(built.exit_code, 0) << built.err;
    auto ours = expect_names_as_perf(binary + ".data", binary);
    std::string spin =
        std::string(mangling) == "v0" ? "<rust_shapes::Foo<u64>>::spin+0x" : "rust_shapes::Foo<T>::spin+0x";
    EXPECT_GT(count_starting(ours, spin), ours.size() / 2) << mangling;
  }
}

static std::set<std::string> perf_maps() {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/tmp", ec)) {
    std::string name = entry.path().filename();
    if (name.starts_with("perf-") && name.ends_with(".map")) out.insert(entry.path());
  }
  return out;
}

// The JIT workload leaves its map behind for the profiler, as JITs do; removed with the test.
struct NewPerfMapsRemoved {
  std::set<std::string> before = perf_maps();
  ~NewPerfMapsRemoved() {
    for (const std::string& path : perf_maps())
      if (!before.count(path)) std::filesystem::remove(path);
  }
};

TEST_F(SymbolsAgainstPerf, JitMapEntriesAreUsed) {
  NewPerfMapsRemoved cleanup;
  auto ours = expect_names_as_perf(dir_ + "/jit.data", workload("jit") + " 150");
  EXPECT_GT(count_containing(ours, "jit_spin_first+0x"), 10u);
  EXPECT_GT(count_containing(ours, "jit_spin_second+0x"), 10u);
  EXPECT_GT(count_containing(ours, "(/tmp/perf-"), 20u);
}

// perf script -F ip,srcline: "ip" then "  file.c:N" (or a "dso[addr]" fallback) per sample.
TEST_F(SymbolsAgainstPerf, SrclinesOfSamplesAreThoseOfPerf) {
  std::string data = dir_ + "/srcline.data";
  auto recorded =
      run("perf record -q --no-buildid-cache -o " + data + " -- " + workload("inlined") + " 20000000");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  auto script = lines(run("perf script -i " + data + " -F ip,srcline 2>/dev/null").out);
  // Each sample's ip line, then its srcline indented by two spaces; perf prints none where it
  // finds no line (an unresolved address), which is "" here.
  std::vector<std::string> expected;
  for (const std::string& line : script) {
    if (line.starts_with("  ") && line.find_first_not_of(' ') == 2) {
      if (!expected.empty()) expected.back() = line.substr(2);
    } else if (!line.empty()) {
      expected.emplace_back();
    }
  }

  struct SrclineNamer : session::SessionVisitor {
    explicit SrclineNamer(symbols::Symbolizer& s) : symbolizer(s) {}
    void on_sample(const session::SampleEvent& sample) override {
      const session::Location& leaf = sample.callchain.front();
      srclines.push_back(leaf.dso ? symbolizer.srcline(*leaf.dso, leaf.dso_address) : "");
    }
    symbols::Symbolizer& symbolizer;
    std::vector<std::string> srclines;
  };
  symbols::Symbolizer symbolizer(options());
  SrclineNamer namer(symbolizer);
  auto session = session::Session::open(data);
  ASSERT_TRUE(session);
  ASSERT_TRUE(session->process(namer));
  ASSERT_EQ(namer.srclines.size(), expected.size());
  // The workload's samples are compared line for line. The few that land elsewhere (kernel,
  // libc, ld.so, vdso) are not: what perf's addr2line makes of them depends on its reading of
  // glibc's DWARF 5 debug files (README's header-file difference), and the full suite failed
  // here now and then on one such sample.
  size_t workload_lines = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const std::string& ours = namer.srclines[i];
    const std::string& theirs = expected[i];
    if (!ours.starts_with("inlined.c:") && !theirs.starts_with("inlined.c:")) continue;
    EXPECT_EQ(ours, theirs) << "sample " << i;
    workload_lines += ours.starts_with("inlined.c:");
  }
  EXPECT_GT(workload_lines, expected.size() / 2);
}
