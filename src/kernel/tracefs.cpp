#include "kernel/tracefs.hpp"

#include <sys/mount.h>

#include <cerrno>
#include <mutex>

#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::kernel {

namespace {

constexpr const char* kDefaultMount = "/sys/kernel/tracing";

// The first tracefs mount point listed in /proc/mounts, if any.
std::string find_mounted_tracefs() {
  auto mounts = read_file("/proc/mounts");
  if (!mounts) return {};
  for (const auto& line : split(*mounts, '\n')) {
    auto fields = split(line, ' ');
    if (fields.size() >= 3 && fields[2] == "tracefs") return fields[1];
  }
  return {};
}

Result<std::string> locate_or_mount() {
  if (std::string mounted = find_mounted_tracefs(); !mounted.empty()) return mounted;
  if (::mount("nodev", kDefaultMount, "tracefs", 0, nullptr) != 0) {
    return failf(
        "tracefs is not mounted and mounting it on {} failed: {}; mount it with "
        "'mount -t tracefs nodev {}' (as root)",
        kDefaultMount, errno_text(errno), kDefaultMount);
  }
  return std::string(kDefaultMount);
}

}  // namespace

Result<std::string> tracefs_root() {
  static std::mutex mutex;
  static std::string root;
  std::lock_guard lock(mutex);
  if (!root.empty() && path_exists(root + "/events")) return root;
  auto found = locate_or_mount();
  if (found) root = *found;
  return found;
}

Result<std::vector<std::string>> tracepoint_systems() {
  auto root = tracefs_root();
  if (!root) return tl::unexpected(root.error());
  auto entries = list_directory(*root + "/events");
  if (!entries) return entries;
  std::vector<std::string> systems;
  for (auto& entry : *entries)
    if (is_directory(*root + "/events/" + entry)) systems.push_back(std::move(entry));
  return systems;
}

Result<std::vector<std::string>> tracepoint_names(const std::string& system) {
  auto root = tracefs_root();
  if (!root) return tl::unexpected(root.error());
  std::string dir = *root + "/events/" + system;
  auto entries = list_directory(dir);
  if (!entries) return entries;
  std::vector<std::string> names;
  for (auto& entry : *entries)
    if (path_exists(dir + "/" + entry + "/id")) names.push_back(std::move(entry));
  return names;
}

Result<uint64_t> tracepoint_id(const std::string& system, const std::string& name) {
  auto root = tracefs_root();
  if (!root) return tl::unexpected(root.error());
  auto text = read_file(*root + "/events/" + system + "/" + name + "/id");
  if (!text) return tl::unexpected(text.error());
  auto id = parse_uint(trim(*text), 10);
  if (!id) return failf("unreadable tracepoint id for {}:{}", system, name);
  return *id;
}

Result<std::string> tracepoint_format(const std::string& system, const std::string& name) {
  auto root = tracefs_root();
  if (!root) return tl::unexpected(root.error());
  return read_file(*root + "/events/" + system + "/" + name + "/format");
}

}  // namespace sonde::kernel
