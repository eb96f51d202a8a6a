#pragma once
// perf report --tasks: every thread the file names (and perf's idle "swapper"), each under the
// thread that forked it, in perf's order (threads by tid within buckets of tid % 256).
#include <cstdint>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "session/machine.hpp"

namespace sonde::analysis {

struct TaskMap {
  uint64_t start = 0, end = 0, pgoff = 0, inode = 0;
  uint32_t prot = 0, flags = 0;
  std::string file;
};

struct TaskLine {
  int32_t pid = -1, tid = -1, ppid = -1;
  int level = 0;  // depth under its root
  std::string comm;
  std::vector<TaskMap> maps;  // with `with_maps`: the thread's user maps by address (--mmaps)
};

// The tree of the machine's threads, depth first. A thread whose parent is unknown to the
// machine is an error, as in perf.
Result<std::vector<TaskLine>> task_tree(const session::Machine& machine, bool with_maps = false);

// One replay of `input` ("-" a pipe), then its task tree.
Result<std::vector<TaskLine>> list_tasks(const std::string& input, bool with_maps, Diagnostics& diagnostics);

}  // namespace sonde::analysis
