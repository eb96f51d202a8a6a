#include "output/report/task_tree_text.hpp"

#include <fmt/format.h>

namespace sonde::output {

void print_task_tree(std::FILE* out, const std::vector<analysis::TaskLine>& tasks) {
  fmt::memory_buffer text;
  auto it = fmt::appender(text);
  fmt::format_to(it, "# {:>8} {:>8} {:>8}  {}\n", "pid", "tid", "ppid", "comm");
  for (const auto& task : tasks)
    fmt::format_to(it, "  {:8} {:8} {:8} |{:{}}{}\n", task.pid, task.tid, task.ppid, "", task.level,
                   task.comm);
  std::fwrite(text.data(), 1, text.size(), out);
}

}  // namespace sonde::output
