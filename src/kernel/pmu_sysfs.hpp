#pragma once
// PMUs the kernel exposes under /sys/bus/event_source/devices/<pmu>: the attr.type number, the
// format fields that say which config bits a term like "umask=0x01" fills, and named events.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.hpp"

namespace sonde::kernel {

// One <pmu>/format/<name> file such as "config:0-7" or "config:8-15,24-31".
struct PmuFormatField {
  std::string name;
  int config_index = 0;  // 0: attr.config, 1: config1, 2: config2
  // Inclusive [low, high] bit ranges; the value's low bits fill the first range first.
  std::vector<std::pair<int, int>> ranges;
  int width() const;
  // The value's bits spread over the ranges; false when the value needs more bits than the
  // field has.
  bool pack(uint64_t value, uint64_t& config) const;
};

// One <pmu>/events/<name> file: a term list such as "event=0x00".
struct PmuEventAlias {
  std::string name;
  std::string terms;
};

struct Pmu {
  std::string name;
  uint32_t type = 0;
  std::vector<PmuFormatField> formats;  // sorted by name
  std::vector<PmuEventAlias> events;    // sorted by name
  const PmuFormatField* format(std::string_view field) const;
  const PmuEventAlias* event(std::string_view alias) const;
};

// The directory the PMUs are read from; tests point it at a fake tree.
void set_pmu_sysfs_root(std::string root);
const std::string& pmu_sysfs_root();

// The PMU names, sorted; empty when the directory is unreadable.
std::vector<std::string> pmu_names();
bool pmu_exists(const std::string& name);
// Reads one PMU's type, formats and named events (not their .scale/.unit companions).
Result<Pmu> read_pmu(const std::string& name);
Result<PmuFormatField> parse_pmu_format(std::string_view name, std::string_view text);

}  // namespace sonde::kernel
