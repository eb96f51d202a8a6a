#pragma once
// Small string helpers shared by every layer.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sonde {

// A hex digit's value (either case), or -1; no locale lookups (kallsyms has 100k+ lines).
constexpr int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::vector<std::string> split(std::string_view text, char separator);
std::string_view trim(std::string_view text);
// fnmatch-style glob with '*', '?' and '[...]', as perf uses for tracepoint and event names.
bool glob_match(std::string_view pattern, std::string_view text);
bool has_glob(std::string_view text);
// Parses decimal, 0x hex or 0 octal as strtoull does; nullopt on trailing junk or overflow.
std::optional<unsigned long long> parse_uint(std::string_view text, int base = 0);
// A size with perf's optional suffix: B, K, M or G (case-insensitive; 1024-based): "100M".
std::optional<unsigned long long> parse_size(std::string_view text);
// The last component of a path: what follows the last '/', or the whole text without one.
std::string_view path_basename(std::string_view path);
// The directory part of `path`: "." without a slash, "/" for a file at the root.
std::string path_directory(std::string_view path);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
// perf's page-size name (unit_number__scnprintf): 4096 -> "4K", by 1024s in B K M G; "N/A" for 0.
std::string page_size_name(uint64_t size);
// Bytes read from a file, fit for an error message: printable ASCII as it is, other bytes as
// \xNN, cut after `max` bytes with "..." (a damaged file must not flood the terminal).
std::string message_excerpt(std::string_view raw, size_t max = 32);

}  // namespace sonde
