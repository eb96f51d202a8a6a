#include "base/strings.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <cerrno>
#include <cstdlib>

namespace sonde {

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

std::string_view trim(std::string_view text) {
  const char* spaces = " \t\r\n";
  size_t first = text.find_first_not_of(spaces);
  if (first == std::string_view::npos) return {};
  size_t last = text.find_last_not_of(spaces);
  return text.substr(first, last - first + 1);
}

bool glob_match(std::string_view pattern, std::string_view text) {
  return fnmatch(std::string(pattern).c_str(), std::string(text).c_str(), 0) == 0;
}

bool has_glob(std::string_view text) { return text.find_first_of("*?[") != std::string_view::npos; }

std::optional<unsigned long long> parse_uint(std::string_view text, int base) {
  if (text.empty() || text.front() == '-' || text.front() == '+' || text.front() == ' ') return std::nullopt;
  std::string owned(text);
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(owned.c_str(), &end, base);
  if (errno != 0 || end != owned.c_str() + owned.size()) return std::nullopt;
  return value;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

std::string_view path_basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string path_directory(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? "." : slash == 0 ? "/" : std::string(path.substr(0, slash));
}

std::string page_size_name(uint64_t size) {
  if (size == 0) return "N/A";
  static constexpr char kUnits[] = "BKMG";
  int unit = 0;
  while (size / 1024 > 1 && unit < 3) {
    size /= 1024;
    ++unit;
  }
  return std::to_string(size) + kUnits[unit];
}

std::string message_excerpt(std::string_view raw, size_t max) {
  std::string text;
  for (size_t i = 0; i < raw.size() && i < max; ++i) {
    auto byte = static_cast<unsigned char>(raw[i]);
    if (byte >= 0x20 && byte < 0x7f)
      text += static_cast<char>(byte);
    else
      text += fmt::format("\\x{:02x}", byte);
  }
  if (raw.size() > max) text += "...";
  return text;
}

std::optional<unsigned long long> parse_size(std::string_view text) {
  text = trim(text);
  unsigned long long scale = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'b':
      case 'B':
        scale = 1;
        break;
      case 'k':
      case 'K':
        scale = 1ull << 10;
        break;
      case 'm':
      case 'M':
        scale = 1ull << 20;
        break;
      case 'g':
      case 'G':
        scale = 1ull << 30;
        break;
      default:
        scale = 0;
    }
    if (scale != 0)
      text.remove_suffix(1);
    else
      scale = 1;
  }
  auto value = parse_uint(text, 10);
  if (!value || *value > ~0ull / scale) return std::nullopt;
  return *value * scale;
}

}  // namespace sonde
