#include "kernel/cpus.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::kernel {

Result<std::vector<int>> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  text = trim(text);
  if (text.empty()) return fail("empty CPU list; give CPUs like 0-3,5");
  for (const auto& part : split(text, ',')) {
    auto bounds = split(part, '-');
    if (bounds.size() > 2) return failf("bad CPU range '{}'; give CPUs like 0-3,5", part);
    auto first = parse_uint(trim(bounds[0]), 10);
    auto last = bounds.size() == 2 ? parse_uint(trim(bounds[1]), 10) : first;
    if (!first || !last || *last < *first || *last > 4095)
      return failf("bad CPU list '{}'; give CPUs like 0-3,5", text);
    for (auto cpu = *first; cpu <= *last; ++cpu) cpus.push_back(static_cast<int>(cpu));
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::vector<int> online_cpus() {
  if (auto text = read_file("/sys/devices/system/cpu/online")) {
    if (auto cpus = parse_cpu_list(*text)) return *cpus;
  }
  std::vector<int> cpus;
  for (long i = 0; i < sysconf(_SC_NPROCESSORS_ONLN); ++i) cpus.push_back(static_cast<int>(i));
  return cpus;
}

namespace {

int sysfs_number(const std::string& path, int missing) {
  auto text = read_file(path);
  if (!text) return missing;
  auto value = parse_uint(trim(*text), 10);
  return value ? static_cast<int>(*value) : missing;
}

}  // namespace

CpuPlace cpu_place(int cpu) {
  CpuPlace place;
  std::string dir = fmt::format("/sys/devices/system/cpu/cpu{}", cpu);
  place.socket = sysfs_number(dir + "/topology/physical_package_id", -1);
  place.die = sysfs_number(dir + "/topology/die_id", 0);
  place.core = sysfs_number(dir + "/topology/core_id", -1);
  // The node is the "nodeN" link in the CPU's directory.
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    std::string name = entry.path().filename().string();
    if (name.size() > 4 && name.compare(0, 4, "node") == 0)
      if (auto node = parse_uint(std::string_view(name).substr(4), 10)) place.node = static_cast<int>(*node);
  }
  return place;
}

}  // namespace sonde::kernel
