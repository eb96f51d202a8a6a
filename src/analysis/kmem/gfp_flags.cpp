#include "analysis/kmem/gfp_flags.hpp"

#include <array>
#include <utility>

namespace sonde::analysis {

namespace {

// include/trace/events/mmflags.h's names and perf's short codes for them.
constexpr std::array<std::pair<std::string_view, std::string_view>, 34> kCompactNames = {{
    {"GFP_TRANSHUGE", "THP"},
    {"GFP_TRANSHUGE_LIGHT", "THL"},
    {"GFP_HIGHUSER_MOVABLE", "HUM"},
    {"GFP_HIGHUSER", "HU"},
    {"GFP_USER", "U"},
    {"GFP_KERNEL_ACCOUNT", "KAC"},
    {"GFP_KERNEL", "K"},
    {"GFP_NOFS", "NF"},
    {"GFP_ATOMIC", "A"},
    {"GFP_NOIO", "NI"},
    {"GFP_NOWAIT", "NW"},
    {"GFP_DMA", "D"},
    {"__GFP_HIGHMEM", "HM"},
    {"GFP_DMA32", "D32"},
    {"__GFP_HIGH", "H"},
    {"__GFP_IO", "I"},
    {"__GFP_FS", "F"},
    {"__GFP_NOWARN", "NWR"},
    {"__GFP_RETRY_MAYFAIL", "R"},
    {"__GFP_NOFAIL", "NF"},
    {"__GFP_NORETRY", "NR"},
    {"__GFP_COMP", "C"},
    {"__GFP_ZERO", "Z"},
    {"__GFP_NOMEMALLOC", "NMA"},
    {"__GFP_MEMALLOC", "MA"},
    {"__GFP_HARDWALL", "HW"},
    {"__GFP_THISNODE", "TN"},
    {"__GFP_RECLAIMABLE", "RC"},
    {"__GFP_MOVABLE", "M"},
    {"__GFP_ACCOUNT", "AC"},
    {"__GFP_WRITE", "WR"},
    {"__GFP_RECLAIM", "R"},
    {"__GFP_DIRECT_RECLAIM", "DR"},
    {"__GFP_KSWAPD_RECLAIM", "KR"},
}};

}  // namespace

std::string compact_gfp_flags(std::string_view names) {
  std::string compact;
  for (size_t start = 0; start < names.size();) {
    size_t bar = names.find('|', start);
    if (bar == std::string_view::npos) bar = names.size();
    std::string_view name = names.substr(start, bar - start);
    start = bar + 1;
    if (name.empty()) continue;
    for (const auto& [original, code] : kCompactNames) {
      if (original != name) continue;
      if (!compact.empty()) compact += '|';
      compact += code;
    }
  }
  return compact;
}

std::string_view gfp_flags_word(std::string_view printed) {
  constexpr std::string_view kKey = "gfp_flags=";
  for (size_t start = 0; start < printed.size();) {
    size_t space = printed.find(' ', start);
    if (space == std::string_view::npos) space = printed.size();
    std::string_view word = printed.substr(start, space - start);
    if (word.starts_with(kKey)) return word.substr(kKey.size());
    start = space + 1;
  }
  return {};
}

void GfpTable::add(uint32_t flags, std::string_view human) {
  Names names{compact_gfp_flags(human), std::string(human)};
  compact_width_ = std::max(compact_width_, names.compact.size());
  by_flags_.insert_or_assign(flags, std::move(names));
}

const GfpTable::Names* GfpTable::find(uint32_t flags) const {
  auto found = by_flags_.find(flags);
  return found == by_flags_.end() ? nullptr : &found->second;
}

}  // namespace sonde::analysis
