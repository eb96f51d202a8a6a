#pragma once
// A DSO's symbols sorted by address, with perf's clean-ups applied once when built: of symbols
// at the same address one survives (perf's choice: sized over zero-size, global over weak over
// local, fewer leading underscores, longer name), and a symbol without a size ends where the
// next one starts.
#include <cstdint>
#include <string>
#include <vector>

#include "symbols/perf_symbol_tree.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::symbols {

// A symbol as a source delivers it, before the clean-ups.
struct RawSymbol {
  uint64_t start = 0;
  uint64_t size = 0;
  uint8_t binding = 0;  // STB_LOCAL, STB_GLOBAL, STB_WEAK
  std::string name;
};

class SymbolTable {
 public:
  SymbolTable() = default;
  // `kallsyms`: the kernel's list, where the last symbol before a module's block ends at the
  // next page rather than at the module (perf's symbols__fixup_end).
  static SymbolTable build(std::vector<RawSymbol> symbols, bool kallsyms = false);
  // A table of symbols already cleaned up (their sizes are their extents), in any order.
  static SymbolTable from_clean(std::vector<Symbol> symbols);
  // Adds symbols that perf inserts after its clean-ups (PLT entries): kept as they are.
  void add_unchecked(std::vector<RawSymbol> symbols);

  // The symbol covering `addr`, or nullptr. Where symbols overlap (a zero-size _init stretched
  // over .plt and the "f@plt" entries), the one perf's symbol tree finds first; the one starting
  // first in tables built without that tree.
  const Symbol* find(uint64_t addr) const;
  const std::vector<Symbol>& symbols() const { return symbols_; }
  bool empty() const { return symbols_.empty(); }

 private:
  void sort_and_index();
  void permute_by_start();  // symbols_ and ends_ into start order (stable)

  std::vector<Symbol> symbols_;   // by start
  std::vector<uint64_t> starts_;  // symbols_[i].start, dense for the binary search
  std::vector<uint64_t> ends_;    // exclusive end of each symbol after the fix-ups
  // max_end_[i]: the largest end among symbols_[0..i], to stop the backward scan of overlaps.
  std::vector<uint64_t> max_end_;
  // perf's tree of the same symbols, replayed for ELF tables (not kallsyms): it settles overlaps.
  PerfSymbolTree tree_;
  bool has_tree_ = false;
};

}  // namespace sonde::symbols
