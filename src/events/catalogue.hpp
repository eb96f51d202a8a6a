#pragma once
// The events perf knows by name without asking the kernel: the generalized hardware events,
// the software events and the hardware-cache matrix, with perf's spellings and aliases.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

namespace sonde::events {

struct SymbolEvent {
  std::string_view name;   // "cpu-cycles"
  std::string_view alias;  // "cycles", or empty
  uint32_t type;           // PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE
  uint64_t config;
};

std::span<const SymbolEvent> hardware_events();
std::span<const SymbolEvent> software_events();
// A hardware or software event by its name or alias; nullptr when there is none.
const SymbolEvent* find_symbol_event(std::string_view name);

// The hardware-cache matrix: config = cache | (op << 8) | (result << 16).
struct CacheEventError {
  size_t offset;  // within the word
  std::string message;
};
// nullopt when the word does not start with a cache name ("L1-dcache", "LLC"...); otherwise its
// config, or where and why the rest of the word is wrong.
std::optional<tl::expected<uint64_t, CacheEventError>> parse_cache_event(std::string_view word);
// Every valid combination under perf list's names ("L1-dcache-load-misses", "LLC-loads"),
// sorted as perf list sorts them.
std::vector<std::string> cache_event_names();

}  // namespace sonde::events
