#include "perfdata/machine_facts.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "kernel/cpus.hpp"

namespace sonde::perfdata {

namespace {

constexpr const char* kCpuRoot = "/sys/devices/system/cpu";

// The value of the first "key : value" line of /proc/cpuinfo whose key is `key`.
std::string cpuinfo_value(const std::string& cpuinfo, std::string_view key) {
  for (const auto& line : split(cpuinfo, '\n')) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trim(std::string_view(line).substr(0, colon)) != key) continue;
    return std::string(trim(std::string_view(line).substr(colon + 1)));
  }
  return {};
}

std::string sysfs_text(const std::string& path) {
  auto text = read_file(path);
  return text ? std::string(trim(*text)) : std::string();
}

// A topology id file; perf writes -1 (as u32) for a CPU whose ids cannot be read (offline).
uint32_t sysfs_id(const std::string& path) {
  auto value = parse_uint(sysfs_text(path), 10);
  return value ? static_cast<uint32_t>(*value) : UINT32_MAX;
}

void add_unique(std::vector<std::string>& lists, const std::string& list) {
  if (!list.empty() && std::find(lists.begin(), lists.end(), list) == lists.end()) lists.push_back(list);
}

CpuTopology read_topology(uint32_t nr_available) {
  CpuTopology topology;
  bool has_dies = path_exists(std::string(kCpuRoot) + "/cpu0/topology/die_cpus_list");
  for (int cpu : kernel::online_cpus()) {
    std::string dir = fmt::format("{}/cpu{}/topology/", kCpuRoot, cpu);
    std::string package = sysfs_text(dir + "package_cpus_list");
    if (package.empty()) package = sysfs_text(dir + "core_siblings_list");
    std::string core = sysfs_text(dir + "core_cpus_list");
    if (core.empty()) core = sysfs_text(dir + "thread_siblings_list");
    add_unique(topology.package_cpus, package);
    add_unique(topology.core_cpus, core);
    if (has_dies) add_unique(topology.die_cpus, sysfs_text(dir + "die_cpus_list"));
  }
  for (uint32_t cpu = 0; cpu < nr_available; ++cpu) {
    std::string dir = fmt::format("{}/cpu{}/topology/", kCpuRoot, cpu);
    topology.cpus.push_back({sysfs_id(dir + "core_id"), sysfs_id(dir + "physical_package_id"),
                             has_dies ? sysfs_id(dir + "die_id") : 0});
  }
  return topology;
}

}  // namespace

std::string squash_spaces(std::string_view text) {
  std::string out;
  bool in_space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!in_space) out += ' ';
      in_space = true;
    } else {
      out += c;
      in_space = false;
    }
  }
  return out;
}

MachineFacts gather_machine_facts() {
  MachineFacts facts;
  utsname uts{};
  if (uname(&uts) == 0) {
    facts.hostname = uts.nodename;
    facts.os_release = uts.release;
    facts.arch = uts.machine;
  }
  if (auto cpuinfo = read_file("/proc/cpuinfo")) {
    facts.cpu_desc = squash_spaces(cpuinfo_value(*cpuinfo, "model name"));
    std::string vendor = cpuinfo_value(*cpuinfo, "vendor_id");
    // perf's x86 get_cpuid() decodes the same family/model/stepping from the cpuid instruction.
    if (!vendor.empty())
      facts.cpuid = fmt::format("{},{},{},{}", vendor, cpuinfo_value(*cpuinfo, "cpu family"),
                                cpuinfo_value(*cpuinfo, "model"), cpuinfo_value(*cpuinfo, "stepping"));
  }
  // perf's "available" is the highest present CPU plus one; "online" is sysconf's count.
  if (auto present = kernel::parse_cpu_list(sysfs_text(std::string(kCpuRoot) + "/present"));
      present && !present->empty())
    facts.nr_cpus.available = static_cast<uint32_t>(*std::max_element(present->begin(), present->end()) + 1);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  facts.nr_cpus.online = online > 0 ? static_cast<uint32_t>(online) : 0;
  if (facts.nr_cpus.available == 0) facts.nr_cpus.available = facts.nr_cpus.online;
  if (auto meminfo = read_file("/proc/meminfo")) {
    std::string total = cpuinfo_value(*meminfo, "MemTotal");  // "24684092 kB"
    if (auto kb = parse_uint(total.substr(0, total.find(' ')), 10)) facts.total_mem_kb = *kb;
  }
  facts.topology = read_topology(facts.nr_cpus.available);
  return facts;
}

void fill_machine_features(const MachineFacts& facts, FeatureSet& features) {
  auto set = [](std::optional<std::string>& field, const std::string& value) {
    if (!value.empty()) field = value;
  };
  set(features.hostname, facts.hostname);
  set(features.os_release, facts.os_release);
  set(features.arch, facts.arch);
  set(features.cpu_desc, facts.cpu_desc);
  set(features.cpuid, facts.cpuid);
  if (facts.nr_cpus.available) features.nr_cpus = facts.nr_cpus;
  if (facts.total_mem_kb) features.total_mem_kb = facts.total_mem_kb;
  if (!facts.topology.package_cpus.empty()) features.cpu_topology = facts.topology;
}

}  // namespace sonde::perfdata
