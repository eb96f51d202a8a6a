#include "kernel/pmu_sysfs.hpp"

#include <algorithm>

#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::kernel {

namespace {

std::string& root_storage() {
  static std::string root = "/sys/bus/event_source/devices";
  return root;
}

// Named-event files with these suffixes describe another event (its scale, unit...), they are
// not events themselves.
bool is_alias_companion(std::string_view name) {
  for (std::string_view suffix : {".scale", ".unit", ".per-pkg", ".snapshot"})
    if (name.ends_with(suffix)) return true;
  return false;
}

}  // namespace

int PmuFormatField::width() const {
  int bits = 0;
  for (auto [low, high] : ranges) bits += high - low + 1;
  return bits;
}

bool PmuFormatField::pack(uint64_t value, uint64_t& config) const {
  int shift = 0;
  for (auto [low, high] : ranges) {
    for (int bit = low; bit <= high; ++bit, ++shift) {
      if (shift < 64 && (value >> shift) & 1) config |= uint64_t{1} << bit;
    }
  }
  return shift >= 64 || (value >> shift) == 0;
}

const PmuFormatField* Pmu::format(std::string_view field) const {
  for (const auto& f : formats)
    if (f.name == field) return &f;
  return nullptr;
}

const PmuEventAlias* Pmu::event(std::string_view alias) const {
  for (const auto& e : events)
    if (e.name == alias) return &e;
  return nullptr;
}

void set_pmu_sysfs_root(std::string root) { root_storage() = std::move(root); }
const std::string& pmu_sysfs_root() { return root_storage(); }

std::vector<std::string> pmu_names() {
  auto names = list_directory(pmu_sysfs_root());
  return names ? *names : std::vector<std::string>{};
}

bool pmu_exists(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") return false;
  return path_exists(pmu_sysfs_root() + "/" + name + "/type");
}

Result<PmuFormatField> parse_pmu_format(std::string_view name, std::string_view text) {
  text = trim(text);
  PmuFormatField field;
  field.name = std::string(name);
  size_t colon = text.find(':');
  std::string_view target = text.substr(0, colon);
  if (target == "config")
    field.config_index = 0;
  else if (target == "config1")
    field.config_index = 1;
  else if (target == "config2")
    field.config_index = 2;
  else
    return failf("format '{}' targets unknown field '{}'", name, target);
  if (colon == std::string_view::npos) return failf("format '{}' has no bit range: '{}'", name, text);
  for (const auto& range : split(text.substr(colon + 1), ',')) {
    size_t dash = range.find('-');
    auto low = parse_uint(range.substr(0, dash), 10);
    auto high = dash == std::string::npos ? low : parse_uint(range.substr(dash + 1), 10);
    if (!low || !high || *low > *high || *high > 63)
      return failf("format '{}' has a bad bit range '{}'", name, range);
    field.ranges.emplace_back(static_cast<int>(*low), static_cast<int>(*high));
  }
  return field;
}

Result<Pmu> read_pmu(const std::string& name) {
  if (!pmu_exists(name)) return failf("no PMU '{}' in {}", name, pmu_sysfs_root());
  std::string dir = pmu_sysfs_root() + "/" + name;
  Pmu pmu;
  pmu.name = name;
  auto type_text = read_file(dir + "/type");
  if (!type_text) return tl::unexpected(type_text.error());
  auto type = parse_uint(trim(*type_text), 10);
  if (!type || *type > UINT32_MAX) return failf("unreadable PMU type in {}/type", dir);
  pmu.type = static_cast<uint32_t>(*type);
  // format/ and events/ are optional: the software PMU has neither.
  if (auto formats = list_directory(dir + "/format")) {
    for (const auto& field : *formats) {
      auto text = read_file(dir + "/format/" + field);
      if (!text) return tl::unexpected(text.error());
      auto parsed = parse_pmu_format(field, *text);
      if (!parsed) return tl::unexpected(parsed.error());
      pmu.formats.push_back(std::move(*parsed));
    }
  }
  if (auto events = list_directory(dir + "/events")) {
    for (const auto& event : *events) {
      if (is_alias_companion(event)) continue;
      auto text = read_file(dir + "/events/" + event);
      if (!text) continue;  // some events are unreadable without privileges; skip them as perf does
      pmu.events.push_back({event, std::string(trim(*text))});
    }
  }
  return pmu;
}

}  // namespace sonde::kernel
