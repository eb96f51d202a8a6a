#include "capture/tasks.hpp"

#include <fmt/format.h>
#include <pwd.h>

#include <cstdio>

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

Result<std::string> processes_of_user(std::string_view user) {
  uid_t uid;
  if (auto number = parse_uint(user, 10)) {
    uid = static_cast<uid_t>(*number);
  } else {
    std::string name(user);
    passwd* entry = ::getpwnam(name.c_str());
    if (!entry) return failf("no user named '{}'; give a user name or number to -u", user);
    uid = entry->pw_uid;
  }
  auto entries = list_directory("/proc");
  if (!entries) return tl::unexpected(entries.error());
  std::vector<std::string> pids;
  for (const auto& name : *entries) {
    if (!parse_uint(name, 10)) continue;
    // The Uid: line's first number is the real user.
    auto status = read_file(fmt::format("/proc/{}/status", name));
    if (!status) continue;
    auto at = status->find("\nUid:");
    if (at == std::string::npos) continue;
    unsigned long real = 0;
    if (std::sscanf(status->c_str() + at + 5, "%lu", &real) == 1 && real == uid) pids.push_back(name);
  }
  if (pids.empty()) return failf("user '{}' has no processes to sample", user);
  return join(pids, ",");
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
