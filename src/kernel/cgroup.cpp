#include "kernel/cgroup.hpp"

#include <dirent.h>
#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::kernel {

namespace {

// Mount points whose cgroups perf events can filter on, v2 first.
std::vector<std::string> perf_cgroup_roots() {
  std::vector<std::string> v2, v1;
  auto mounts = read_file("/proc/mounts");
  if (!mounts) return {};
  for (const auto& line : split(*mounts, '\n')) {
    auto fields = split(line, ' ');
    if (fields.size() < 4) continue;
    if (fields[2] == "cgroup2")
      v2.push_back(fields[1]);
    else if (fields[2] == "cgroup" && fields[3].find("perf_event") != std::string::npos)
      v1.push_back(fields[1]);
  }
  v2.insert(v2.end(), v1.begin(), v1.end());
  return v2;
}

}  // namespace

Result<UniqueFd> open_perf_cgroup(const std::string& name) {
  if (name.empty() || name.find("..") != std::string::npos)
    return failf("bad cgroup name '{}'; give a path below the cgroup root", name);
  auto roots = perf_cgroup_roots();
  if (roots.empty()) return fail("no cgroup v2 or perf_event cgroup hierarchy is mounted");
  for (const auto& root : roots) {
    std::string path = root + "/" + std::string(name.front() == '/' ? name.substr(1) : name);
    if (!is_directory(path)) continue;
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return failf("cannot open cgroup {}: {}", path, errno_text(errno));
    return UniqueFd(fd);
  }
  return failf("no cgroup '{}' under {}; check the name (ls {})", name, join(roots, " or "), roots.front());
}

namespace {

// The cgroup id the kernel gives samples: the directory's file handle (perf's way to read it).
bool cgroup_id(const std::string& path, uint64_t& id) {
  struct {
    file_handle handle;
    uint64_t id;
  } buffer{};
  buffer.handle.handle_bytes = sizeof buffer.id;
  int mount_id = 0;
  if (::name_to_handle_at(AT_FDCWD, path.c_str(), &buffer.handle, &mount_id, 0) != 0) return false;
  std::memcpy(&id, buffer.handle.f_handle, sizeof id);
  return true;
}

void walk_cgroups(const std::string& path, size_t root_length, std::vector<PerfCgroup>& out) {
  PerfCgroup cgroup;
  if (!cgroup_id(path, cgroup.id)) return;
  cgroup.path = path.size() > root_length ? path.substr(root_length) : "/";
  out.push_back(std::move(cgroup));
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return;
  while (const dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (entry->d_type != DT_DIR || name == "." || name == "..") continue;
    walk_cgroups(path + (path.ends_with('/') ? "" : "/") + std::string(name), root_length, out);
  }
  ::closedir(dir);
}

}  // namespace

std::vector<PerfCgroup> list_perf_cgroups() {
  std::vector<PerfCgroup> cgroups;
  auto roots = perf_cgroup_roots();
  if (roots.empty()) return cgroups;
  std::string root = roots.front();
  while (root.size() > 1 && root.ends_with('/')) root.pop_back();
  walk_cgroups(root, root.size(), cgroups);
  return cgroups;
}

}  // namespace sonde::kernel
