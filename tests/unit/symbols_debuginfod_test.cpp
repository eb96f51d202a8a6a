// debuginfod: with DEBUGINFOD_URLS set, a stripped binary's debug file is fetched by build-id
// from the server (here a local HTTP server laying files out as debuginfod serves them:
// /buildid/<hex>/debuginfo) and its symbols and lines are used.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "symbols/symbolizer.hpp"
#include "symbols_support.hpp"
#include "temp_dir.hpp"

using namespace sonde;
using namespace sonde::test;
using sonde::session::DsoKind;

namespace {

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
    port = ntohs(address.sin_port);
  ::close(fd);
  return port;
}

bool accepts_connections(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return ok;
}

// A static HTTP server over `root`, stopped when this goes out of scope.
class HttpServer {
 public:
  explicit HttpServer(const std::string& root) : port_(free_port()) {
    pid_ = ::fork();
    if (pid_ == 0) {
      std::string port = std::to_string(port_);
      int devnull = ::open("/dev/null", O_WRONLY);
      ::dup2(devnull, 1);
      ::dup2(devnull, 2);
      ::execlp("python3", "python3", "-m", "http.server", port.c_str(), "--bind", "127.0.0.1", "--directory",
               root.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 100 && !accepts_connections(port_); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ~HttpServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  bool running() const { return pid_ > 0 && accepts_connections(port_); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int port_;
  pid_t pid_ = -1;
};

// Sets an environment variable for the test's duration.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_.empty())
      ::unsetenv(name_);
    else
      ::setenv(name_, old_.c_str(), 1);
  }

 private:
  const char* name_;
  std::string old_;
};

}  // namespace

TEST(Debuginfod, DebugFileIsFetchedByBuildId) {
  if (shell_output("command -v python3").empty())
    GTEST_SKIP() << "python3 (the test's HTTP server) is missing";
  std::string dir = unit_temp_dir() + "/debuginfod";
  std::string original = workload_path("demo");
  std::string id = readelf_build_id(original);
  std::string served = dir + "/server/buildid/" + id;
  std::filesystem::create_directories(served);
  std::string stripped = dir + "/demo";
  ASSERT_EQ(
      shell_output("objcopy --only-keep-debug '" + original + "' '" + served +
                   "/debuginfo' && objcopy --strip-all '" + original + "' '" + stripped + "' && echo ok"),
      "ok\n");
  auto functions = readelf_functions(original);
  uint64_t offset = file_offset_of(readelf_loads(original), functions.at("hot_leaf").value) + 2;

  HttpServer server(dir + "/server");
  ASSERT_TRUE(server.running()) << "the local HTTP server did not start";
  ScopedEnv urls("DEBUGINFOD_URLS", server.url());
  ScopedEnv cache("DEBUGINFOD_CACHE_PATH", dir + "/client-cache");
  symbols::SymbolizerOptions options;
  options.buildid_dir = dir + "/no-cache";
  options.debug_root = dir + "/no-debug-root";
  symbols::Symbolizer symbolizer(options);
  auto dso = make_dso(0, DsoKind::user, stripped, id);
  const symbols::Symbol* symbol = symbolizer.find(dso, offset);
  ASSERT_NE(symbol, nullptr);
  EXPECT_EQ(symbol->name, "hot_leaf");
  EXPECT_TRUE(symbolizer.srcline(dso, offset).starts_with("demo.c:1"));
  EXPECT_TRUE(symbolizer.debug_path(dso).starts_with(dir + "/client-cache/")) << symbolizer.debug_path(dso);

  // With debuginfod turned off the same lookup stays local and finds nothing.
  options.debuginfod = false;
  symbols::Symbolizer offline(options);
  EXPECT_EQ(offline.find(dso, offset), nullptr);
  std::filesystem::remove_all(dir);
}
