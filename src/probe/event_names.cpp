#include "probe/event_names.hpp"

#include <fmt/format.h>

#include <cctype>

#include "base/strings.hpp"

namespace sonde::probe {

std::string default_user_group(std::string_view binary_path) {
  // Cut at the first character a C identifier cannot hold: libc.so.6 -> probe_libc.
  std::string base(path_basename(binary_path));
  for (size_t i = 0; i < base.size(); ++i)
    if (!std::isalnum(static_cast<unsigned char>(base[i])) && base[i] != '_') {
      base.resize(i);
      break;
    }
  return "probe_" + base;
}

std::string base_event_name(std::string_view function) {
  std::string name(function);
  if (size_t cut = name.find_first_of(".@"); cut != std::string::npos && cut != 0) name.resize(cut);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) name = "_" + name;
  return name;
}

Result<std::string> EventNamer::claim(const std::string& group, const std::string& base, bool retprobe,
                                      bool allow_suffix) {
  // perf appends __return only to the unsuffixed name: a second return probe is "f_1".
  std::string first = retprobe ? base + "__return" : base;
  if (!taken_.contains(group + ":" + first)) {
    taken_.insert(group + ":" + first);
    return first;
  }
  if (!allow_suffix)
    return failf(
        "event \"{}:{}\" already exists; remove it with 'sonde probe -d {}:{}' or add a duplicate with -f",
        group, first, group, first);
  for (int i = 1; i < 1000; ++i) {
    std::string name = fmt::format("{}_{}", base, i);
    if (!taken_.contains(group + ":" + name)) {
      taken_.insert(group + ":" + name);
      return name;
    }
  }
  return failf("too many events named {}:{}_N", group, base);
}

}  // namespace sonde::probe
