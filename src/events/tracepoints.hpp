#pragma once
// Tracepoints by "system:name" glob, from tracefs's events/ directory (mounted on demand).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::events {

struct Tracepoint {
  std::string system;
  std::string name;
};

// Every tracepoint whose system and name match the globs, sorted by system then name. Reads
// directory listings and checks that each match has an id file, but opens no per-event file.
Result<std::vector<Tracepoint>> find_tracepoints(std::string_view system_glob, std::string_view name_glob);

}  // namespace sonde::events
