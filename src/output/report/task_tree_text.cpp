#include "output/report/task_tree_text.hpp"

#include <fmt/format.h>

namespace sonde::output {

void print_task_tree(std::FILE* out, const std::vector<analysis::TaskLine>& tasks) {
  fmt::memory_buffer text;
  auto it = fmt::appender(text);
  fmt::format_to(it, "# {:>8} {:>8} {:>8}  {}\n", "pid", "tid", "ppid", "comm");
  constexpr uint32_t kRead = 1, kWrite = 2, kExec = 4, kShared = 1;  // PROT_*, MAP_SHARED
  for (const auto& task : tasks) {
    fmt::format_to(it, "  {:8} {:8} {:8} |{:{}}{}\n", task.pid, task.tid, task.ppid, "", task.level,
                   task.comm);
    // perf indents a task's maps by the width of its line up to the comm, then two spaces.
    for (const auto& map : task.maps)
      fmt::format_to(it, "{:{}}  {:x}-{:x} {}{}{}{} {:08x} {} {}\n", "", 30 + task.level, map.start, map.end,
                     map.prot & kRead ? 'r' : '-', map.prot & kWrite ? 'w' : '-',
                     map.prot & kExec ? 'x' : '-', map.flags & kShared ? 's' : 'p', map.pgoff, map.inode,
                     map.file);
  }
  std::fwrite(text.data(), 1, text.size(), out);
}

}  // namespace sonde::output
