#include "capture/tasks.hpp"

#include <fmt/format.h>

#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::capture {

Result<std::vector<pid_t>> parse_task_ids(std::string_view text, std::string_view what) {
  std::vector<pid_t> ids;
  for (const auto& part : split(text, ',')) {
    auto id = parse_uint(trim(part), 10);
    if (!id || *id == 0 || *id > 4194304)
      return failf("bad {} '{}'; give numbers like 1234,5678", what, part);
    ids.push_back(static_cast<pid_t>(*id));
  }
  return ids;
}

Result<std::vector<pid_t>> process_threads(pid_t pid) {
  auto tasks = list_directory(fmt::format("/proc/{}/task", pid));
  if (!tasks) return failf("no process with id {}; check the pid (ps -p {})", pid, pid);
  std::vector<pid_t> tids;
  for (const auto& name : *tasks)
    if (auto tid = parse_uint(name, 10)) tids.push_back(static_cast<pid_t>(*tid));
  return tids;
}

bool task_alive(pid_t id) {
  auto stat = read_file(fmt::format("/proc/{}/stat", id));
  if (!stat) return false;
  size_t paren = stat->rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat->size()) return false;
  char state = (*stat)[paren + 2];
  return state != 'Z' && state != 'X' && state != 'x';
}

bool any_alive(const std::vector<pid_t>& ids) {
  for (pid_t id : ids)
    if (task_alive(id)) return true;
  return false;
}

}  // namespace sonde::capture
