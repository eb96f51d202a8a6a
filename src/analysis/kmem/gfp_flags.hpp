#pragma once
// perf kmem's GFP flag names: each distinct gfp_flags value of the page allocations with the
// text the tracepoint's print format gives it ("GFP_KERNEL|__GFP_ZERO") and perf's compact form
// of that text ("K|Z"), for the page tables' column and the legend above them.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace sonde::analysis {

// perf's compact form: each '|'-separated name by its short code, names without one left out.
std::string compact_gfp_flags(std::string_view names);

// The value of the "gfp_flags=" word of an event's printed payload, "" when it has none.
std::string_view gfp_flags_word(std::string_view printed);

class GfpTable {
 public:
  struct Names {
    std::string compact, human;
  };
  bool contains(uint32_t flags) const { return by_flags_.count(flags) != 0; }
  void add(uint32_t flags, std::string_view human);
  const Names* find(uint32_t flags) const;
  const std::map<uint32_t, Names>& entries() const { return by_flags_; }
  // The longest compact form, which sizes the column.
  size_t compact_width() const { return compact_width_; }

 private:
  std::map<uint32_t, Names> by_flags_;
  size_t compact_width_ = 0;
};

}  // namespace sonde::analysis
