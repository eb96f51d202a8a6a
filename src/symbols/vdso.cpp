#include "symbols/vdso.hpp"

#include <sys/auxv.h>

#include <cstdint>
#include <cstring>

#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::symbols {

std::vector<char> own_vdso_image() {
  uintptr_t base = getauxval(AT_SYSINFO_EHDR);
  if (base == 0) return {};
  auto maps = read_file("/proc/self/maps");
  if (!maps) return {};
  for (const std::string& line : split(*maps, '\n')) {
    if (line.find("[vdso]") == std::string::npos) continue;
    size_t dash = line.find('-'), space = line.find(' ');
    if (dash == std::string::npos || space == std::string::npos) return {};
    auto start = parse_uint(std::string_view(line).substr(0, dash), 16);
    auto end = parse_uint(std::string_view(line).substr(dash + 1, space - dash - 1), 16);
    if (!start || !end || *start != base || *end <= *start) return {};
    std::vector<char> bytes(*end - *start);
    std::memcpy(bytes.data(), reinterpret_cast<const void*>(base), bytes.size());
    return bytes;
  }
  return {};
}

}  // namespace sonde::symbols
