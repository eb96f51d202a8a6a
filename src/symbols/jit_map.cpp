#include "symbols/jit_map.hpp"

#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::symbols {

std::vector<RawSymbol> parse_perf_map(std::string_view text) {
  std::vector<RawSymbol> out;
  for (const std::string& raw_line : split(text, '\n')) {
    std::string_view line = raw_line;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t first = line.find(' ');
    if (first == std::string_view::npos) continue;
    size_t second = line.find(' ', first + 1);
    if (second == std::string_view::npos) continue;
    auto start = parse_uint(line.substr(0, first), 16);
    auto size = parse_uint(line.substr(first + 1, second - first - 1), 16);
    if (!start || !size) continue;
    out.push_back(RawSymbol{*start, *size, STB_GLOBAL, std::string(line.substr(second + 1))});
  }
  return out;
}

Result<SymbolTable> load_perf_map(const std::string& path) {
  // Anyone can write /tmp: a map another user made could name the code anything.
  // lstat: a link planted there is judged by who planted it.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && st.st_uid != 0 && st.st_uid != ::geteuid())
    return failf(
        "owned by another user (uid {}), not by you or root: its names are not trusted (chown it to use it)",
        st.st_uid);
  auto text = read_file(path);
  if (!text) return tl::unexpected(text.error());
  SymbolTable table;
  table.add_unchecked(parse_perf_map(*text));
  return table;
}

}  // namespace sonde::symbols
