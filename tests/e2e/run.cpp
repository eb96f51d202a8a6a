#include "run.hpp"

#include <bpf/bpf.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "kernel/bpf_programs.hpp"

namespace sonde::test {

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}
}  // namespace

RunResult run(const std::string& command) {
  char out_path[] = "/tmp/sonde-test-out-XXXXXX";
  char err_path[] = "/tmp/sonde-test-err-XXXXXX";
  int out_fd = mkstemp(out_path);
  int err_fd = mkstemp(err_path);
  close(out_fd);
  close(err_fd);
  std::string full = "(" + command + ") </dev/null >" + out_path + " 2>" + err_path;
  int status = std::system(full.c_str());
  RunResult result;
  if (WIFEXITED(status))
    result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.exit_code = 128 + WTERMSIG(status);
  result.out = slurp(out_path);
  result.err = slurp(err_path);
  unlink(out_path);
  unlink(err_path);
  return result;
}

std::string sonde_bin() { return SONDE_BINARY; }
std::string workload(const std::string& name) { return std::string(SONDE_WORKLOAD_DIR) + "/" + name; }
bool have_perf() { return run("perf --version").exit_code == 0; }

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  for (auto& line : split(text, '\n'))
    if (!line.empty()) result.push_back(line);
  return result;
}

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string temp_dir() {
  struct Directory {
    std::string path;
    Directory() {
      char tmpl[] = "/tmp/sonde-e2e-XXXXXX";
      path = ::mkdtemp(tmpl) ? tmpl : "/tmp";
    }
    ~Directory() {
      if (path != "/tmp") std::system(("rm -rf " + shell_quote(path)).c_str());
    }
  };
  static Directory directory;
  return directory.path;
}

std::string wait_for_pid_command() { return "sh -c \"while kill -0 $P 2>/dev/null; do sleep 0.02; done\""; }

namespace {

// Whether a program with one of the names sonde's BPF objects use is loaded.
bool sonde_bpf_programs_loaded() {
  auto ids = kernel::loaded_bpf_program_ids();
  if (!ids) return false;
  for (uint32_t id : *ids) {
    int fd = bpf_prog_get_fd_by_id(id);
    if (fd < 0) continue;
    bpf_prog_info info{};
    uint32_t length = sizeof info;
    bool ours = false;
    if (bpf_obj_get_info_by_fd(fd, &info, &length) == 0) {
      std::string_view name(info.name);
      ours = name.starts_with("trace_") || name.starts_with("count_sys_") || name.starts_with("follow_") ||
             name.starts_with("off_cpu_");
    }
    ::close(fd);
    if (ours) return true;
  }
  return false;
}

}  // namespace

std::string tracing_state() {
  const std::string t = "/sys/kernel/tracing";
  if (!is_directory(t + "/events")) return "tracefs not mounted";
  std::string state;
  for (const char* file : {"current_tracer", "set_event", "uprobe_events", "tracing_on"}) {
    auto content = read_file(t + "/" + file);
    state += std::string(file) + "=" + (content ? *content : "?") + ";";
  }
  if (auto instances = list_directory(t + "/instances")) state += "instances=" + join(*instances, ",");
  for (const char* file :
       {"trace_clock", "tracing_cpumask", "set_event_pid", "options/stacktrace", "options/event-fork"}) {
    auto content = read_file(t + "/" + file);
    state += std::string(";") + file + "=" + (content ? std::string(trim(*content)) : "?");
  }
  // "7 (expanded: 1408)" is a boot-time buffer that any tracing at the top level grows: what the
  // next user gets is the expanded size, as the kernel then reports it, in whole ring-buffer pages
  // of 4080 data bytes (1408 KB asked for gives 354 pages, shown as 1410).
  if (auto size = read_file(t + "/buffer_size_kb")) {
    std::string text(trim(*size));
    if (auto expanded = text.find("(expanded: "); expanded != std::string::npos) {
      uint64_t kb = std::stoull(text.substr(expanded + 11));
      uint64_t pages = (kb * 1024 + 4079) / 4080;
      text = std::to_string(pages * 4080 / 1024);
    }
    state += ";buffer_size_kb=" + text;
  }
  // Filters left on any top-level event.
  if (auto systems = list_directory(t + "/events"))
    for (const auto& system : *systems)
      if (auto events = list_directory(t + "/events/" + system))
        for (const auto& event : *events)
          if (auto filter = read_file(t + "/events/" + system + "/" + event + "/filter");
              filter && trim(*filter) != "none")
            state += ";filter " + system + ":" + event + "=" + std::string(trim(*filter));
  if (auto devices = list_directory("/sys/class/block"))
    for (const auto& device : *devices)
      if (auto enable = read_file("/sys/class/block/" + device + "/trace/enable");
          enable && trim(*enable) == "1")
        state += ";blktrace on " + device;
  // BPF programs sonde loaded (stat's syscall counter, trace's tracer) must be gone too. The
  // kernel frees a closed tracing program some 300 ms later, so sonde's are waited for first.
  for (int wait = 0; wait < 40 && sonde_bpf_programs_loaded(); ++wait) ::usleep(50000);
  if (auto programs = kernel::loaded_bpf_program_ids()) {
    state += ";bpf programs=";
    for (uint32_t id : *programs) state += std::to_string(id) + ",";
  }
  return state;
}

}  // namespace sonde::test
