#pragma once
// Runs a command line through /bin/sh and captures what a user would see.
#include <string>
#include <vector>

namespace sonde::test {

struct RunResult {
  int exit_code = -1;  // the exit status, or 128+signal
  std::string out;
  std::string err;
};

// Runs `command` (a shell command line) with stdin from /dev/null.
RunResult run(const std::string& command);
// The sonde binary under test, and a workload binary by name.
std::string sonde_bin();
std::string workload(const std::string& name);
// True when perf, the oracle, is installed.
bool have_perf();
std::vector<std::string> lines(const std::string& text);
// A directory for the test binary's files, made on first use and removed when the binary exits.
std::string temp_dir();
// `text` quoted for /bin/sh.
std::string shell_quote(const std::string& text);
// The machine's tracing state as the before-stop hook reads it (tracer, enabled events,
// probes, instances, clock, cpumask, pid filters, options sonde sets, buffer size, event
// filters, blktrace switches): tests assert it is the same before and after.
std::string tracing_state();
// A shell command (for `-- CMD`) that ends when the process whose pid is in $P does. It polls
// rather than following a file (`tail --pid=$P -f /dev/null`), so it reads and prints nothing.
std::string wait_for_pid_command();

}  // namespace sonde::test
