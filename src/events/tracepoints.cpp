#include "events/tracepoints.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "kernel/tracefs.hpp"

namespace sonde::events {

namespace {

// The subdirectories of `path`, sorted. readdir's d_type spares a stat per entry, which matters
// when there are 2,000 of them; entries of unknown type are stat'ed.
std::vector<std::string> subdirectories(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = ::opendir(path.c_str());
  if (!dir) return names;
  while (dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (entry->d_type == DT_DIR || (entry->d_type == DT_UNKNOWN && is_directory(path + "/" + entry->d_name)))
      names.emplace_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

bool matches(std::string_view glob, std::string_view text) {
  return has_glob(glob) ? glob_match(glob, text) : glob == text;
}

}  // namespace

Result<std::vector<Tracepoint>> find_tracepoints(std::string_view system_glob, std::string_view name_glob) {
  auto root = kernel::tracefs_root();
  if (!root) return tl::unexpected(root.error());
  std::string events = *root + "/events";
  // tracefs is root's alone unless mounted otherwise: say so rather than "unknown tracepoint".
  if (::faccessat(AT_FDCWD, events.c_str(), R_OK | X_OK, AT_EACCESS) != 0 &&
      (errno == EACCES || errno == EPERM))
    return failf(
        "cannot read {}: {}; tracepoints need root, or tracefs mounted readable "
        "(mount -o remount,mode=755 {})",
        events, errno_text(errno), *root);
  std::vector<Tracepoint> found;
  std::vector<std::string> systems;
  if (has_glob(system_glob))
    systems = subdirectories(events);
  else
    systems.emplace_back(system_glob);
  for (const auto& system : systems) {
    if (!matches(system_glob, system)) continue;
    if (!has_glob(name_glob)) {
      if (path_exists(events + "/" + system + "/" + std::string(name_glob) + "/id"))
        found.push_back({system, std::string(name_glob)});
      continue;
    }
    // An event directory without an id file (ftrace's own records) is no tracepoint: perf
    // lists only those with one, and only the matching names need the check.
    std::string system_dir = events + "/" + system + "/";
    for (auto& name : subdirectories(system_dir))
      if (glob_match(name_glob, name) && path_exists(system_dir + name + "/id"))
        found.push_back({system, std::move(name)});
  }
  return found;
}

}  // namespace sonde::events
