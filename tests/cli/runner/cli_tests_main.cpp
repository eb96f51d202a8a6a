// cli_tests: every case of tests/cli/*.test as one GoogleTest test named file.NAME. A case runs
// its SETUP and RUN lines through /bin/sh (with {sonde}, {workloads}, {data} and {tmp}
// replaced), then checks exit status, stdout and stderr lines, a golden file, or a peer's
// output; CLEANUP always runs, and the machine's tracing state must be as before.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli_test_file.hpp"
#include "run.hpp"

namespace sonde::test {

namespace {

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

bool tracefs_has(const std::string& file) {
  return ::access(("/sys/kernel/tracing/" + file).c_str(), F_OK) == 0 ||
         ::access(("/sys/kernel/debug/tracing/" + file).c_str(), F_OK) == 0;
}

// Why the machine cannot run a case, or "" when it can.
std::string missing_facility(const std::string& facility) {
  if (facility == "root") return ::geteuid() == 0 ? "" : "not root";
  if (facility == "perf") return have_perf() ? "" : "perf (the oracle) is not installed";
  if (facility == "trace-cmd")
    return run("command -v trace-cmd").exit_code == 0 ? "" : "trace-cmd (the oracle) is not installed";
  if (facility == "strace")
    return run("command -v strace").exit_code == 0 ? "" : "strace (the oracle) is not installed";
  if (facility == "chromium")
    return run("command -v chromium").exit_code == 0 ? "" : "chromium is not installed";
  if (facility == "uprobes") return tracefs_has("uprobe_events") ? "" : "the kernel has no uprobes";
  if (facility == "kprobes") return tracefs_has("kprobe_events") ? "" : "the kernel has no kprobes";
  return "unknown facility " + facility;
}

// Each line with every mask's matches replaced (so ^ and $ are a line's ends).
std::string masked(const std::string& text, const std::vector<std::string>& masks) {
  if (masks.empty()) return text;
  std::vector<std::regex> regexes;
  for (const auto& mask : masks) regexes.emplace_back(mask);
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    for (const auto& regex : regexes) line = std::regex_replace(line, regex, "<masked>");
    out += line;
    if (end == std::string::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

// A unified diff of `expected` and `actual`, at most 80 lines of it.
std::string diff_of(const std::string& expected, const std::string& actual, const std::string& dir) {
  std::ofstream(dir + "/expected", std::ios::binary) << expected;
  std::ofstream(dir + "/actual", std::ios::binary) << actual;
  return run("diff -u " + dir + "/expected " + dir + "/actual | head -80").out;
}

bool has_line(const std::string& text, const std::string& wanted) {
  auto all = lines(text);
  return std::find(all.begin(), all.end(), wanted) != all.end();
}

bool has_matching_line(const std::string& text, const std::string& pattern) {
  std::regex regex(pattern);
  auto all = lines(text);
  return std::any_of(all.begin(), all.end(),
                     [&](const std::string& line) { return std::regex_search(line, regex); });
}

class CliCaseTest : public ::testing::Test {
 public:
  explicit CliCaseTest(CliCase c) : case_(std::move(c)) {}

  void TestBody() override {
    for (const auto& facility : case_.requires_) {
      if (auto why = missing_facility(facility); !why.empty()) {
        GTEST_SKIP() << why;
      }
    }
    char tmpl[] = "/tmp/sonde-cli-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    tmp_ = tmpl;
    std::string before = tracing_state();
    check();
    for (const auto& command : case_.cleanup) run(expand(command));
    EXPECT_EQ(tracing_state(), before) << "the case changed the machine's tracing state";
    std::filesystem::remove_all(tmp_);
  }

 private:
  std::string expand(const std::string& command) const {
    std::string text = replace_all(command, "{sonde}", sonde_bin());
    text = replace_all(text, "{workloads}", SONDE_WORKLOAD_DIR);
    text = replace_all(text, "{data}", SONDE_TEST_DATA_DIR);
    text = replace_all(text, "{fixtures}", SONDE_TEST_DATA_DIR "/../fixtures");
    text = replace_all(text, "{shared}", shared_dir());
    return replace_all(text, "{tmp}", tmp_);
  }

  std::string shared_dir() const { return std::string(SONDE_CLI_SHARED_DIR) + "/" + case_.suite; }

  // Each case runs in its own process: the file's shared inputs are kept in the build tree with a
  // stamp of what made them (the SETUP_ONCE lines and the sonde binary), and made again when it
  // differs.
  void make_shared_inputs() {
    struct stat binary {};
    ASSERT_EQ(::stat(sonde_bin().c_str(), &binary), 0);
    std::string stamp =
        std::to_string(binary.st_mtim.tv_sec) + "." + std::to_string(binary.st_mtim.tv_nsec) + "\n";
    for (const auto& command : case_.setup_once) stamp += command + "\n";
    // Cases of one file run side by side under ctest -j: one makes the inputs, the others wait.
    std::filesystem::create_directories(SONDE_CLI_SHARED_DIR);
    int lock = ::open((shared_dir() + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    ASSERT_GE(lock, 0);
    struct Unlock {
      int fd;
      ~Unlock() { ::close(fd); }
    } unlock{lock};
    ASSERT_EQ(::flock(lock, LOCK_EX), 0);
    std::string stamp_path = shared_dir() + "/.stamp";
    if (read_whole(stamp_path) == stamp) return;
    std::filesystem::remove_all(shared_dir());
    std::filesystem::create_directories(shared_dir());
    for (const auto& command : case_.setup_once) {
      auto made = run_timed(command);
      ASSERT_EQ(made.exit_code, 0) << case_.suite << ".test: SETUP_ONCE failed: " << command << "\n"
                                   << made.err;
    }
    std::ofstream(stamp_path) << stamp;
  }

  RunResult run_timed(const std::string& command) const {
    return run("timeout -k 5 " + std::to_string(case_.timeout_seconds) + " sh -c " +
               shell_quote(expand(command)));
  }

  void check() {
    std::string where = case_.suite + ".test:" + std::to_string(case_.line);
    if (!case_.setup_once.empty()) {
      make_shared_inputs();
      if (HasFatalFailure()) return;
    }
    for (const auto& command : case_.setup) {
      auto setup = run_timed(command);
      ASSERT_EQ(setup.exit_code, 0) << where << ": SETUP failed: " << command << "\n" << setup.err;
    }
    auto result = run_timed(case_.run);
    ASSERT_NE(result.exit_code, 124) << where << ": timed out after " << case_.timeout_seconds << " s";
    EXPECT_EQ(result.exit_code, case_.exit) << where << ": exit status\nstderr:\n" << result.err;
    EXPECT_GE(lines(result.out).size(), static_cast<size_t>(case_.min_lines))
        << where << ": stdout has fewer lines than MIN_LINES\n"
        << result.out;
    for (const auto& wanted : case_.expect)
      EXPECT_TRUE(has_line(result.out, expand(wanted))) << where << ": no stdout line '" << wanted << "' in\n"
                                                        << result.out;
    for (const auto& pattern : case_.expect_regex)
      EXPECT_TRUE(has_matching_line(result.out, pattern))
          << where << ": no stdout line matches /" << pattern << "/ in\n"
          << result.out;
    for (const auto& wanted : case_.expect_stderr)
      EXPECT_TRUE(has_line(result.err, expand(wanted))) << where << ": no stderr line '" << wanted << "' in\n"
                                                        << result.err;
    for (const auto& pattern : case_.expect_stderr_regex)
      EXPECT_TRUE(has_matching_line(result.err, pattern))
          << where << ": no stderr line matches /" << pattern << "/ in\n"
          << result.err;
    if (!case_.stderr_is.empty()) {
      EXPECT_EQ(result.err, expand(case_.stderr_is) + "\n") << where << ": stderr is not that one line";
    }
    if (case_.stderr_empty) {
      EXPECT_EQ(result.err, "") << where << ": stderr";
    }
    if (!case_.expect_file.empty()) {
      std::string golden_path = std::string(SONDE_CLI_TEST_DIR) + "/" + case_.expect_file;
      if (std::getenv("SONDE_UPDATE_GOLDEN")) std::ofstream(golden_path, std::ios::binary) << result.out;
      ASSERT_EQ(::access(golden_path.c_str(), R_OK), 0) << where << ": no golden file " << golden_path;
      std::string golden = masked(read_whole(golden_path), case_.masks);
      std::string out = masked(result.out, case_.masks);
      EXPECT_TRUE(golden == out) << where << ": stdout differs from " << case_.expect_file << "\n"
                                 << diff_of(golden, out, tmp_);
    }
    if (!case_.same_as.empty()) {
      auto peer = run_timed(case_.same_as);
      ASSERT_NE(peer.exit_code, 124) << where << ": the peer timed out";
      ASSERT_NE(peer.exit_code, 127) << where << ": the peer could not run: " << peer.err;
      if (case_.exit == 0) {
        EXPECT_EQ(peer.exit_code, 0) << where << ": the peer failed\n" << peer.err;
      }
      std::string ours = masked(result.out, case_.masks), theirs = masked(peer.out, case_.masks);
      EXPECT_FALSE(theirs.empty()) << where << ": the peer printed nothing\n" << peer.err;
      EXPECT_TRUE(ours == theirs) << where << ": stdout differs from the peer's (- peer, + sonde)\n"
                                  << diff_of(theirs, ours, tmp_);
    }
  }

  CliCase case_;
  std::string tmp_;
};

}  // namespace

}  // namespace sonde::test

int main(int argc, char** argv) {
  using namespace sonde::test;
  ::testing::InitGoogleTest(&argc, argv);
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(SONDE_CLI_TEST_DIR))
    if (entry.path().extension() == ".test") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    auto cases = parse_cli_test_file(read_whole(path), path.string());
    if (!cases) {
      std::fprintf(stderr, "%s\n", cases.error().message.c_str());
      return 1;
    }
    for (auto& c : *cases) {
      std::string file = path.string();
      int line = c.line;
      std::string suite = c.suite, name = c.name;
      ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, file.c_str(), line,
                              [c]() -> ::testing::Test* { return new CliCaseTest(c); });
    }
  }
  return RUN_ALL_TESTS();
}
