#include "kernel/cgroup.hpp"

#include <fcntl.h>

#include <cerrno>
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

}  // namespace sonde::kernel
