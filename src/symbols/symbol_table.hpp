#pragma once
// A DSO's symbols sorted by address, with perf's clean-ups applied once when built: of symbols
// at the same address one survives (perf's choice: sized over zero-size, global over weak over
// local, fewer leading underscores, longer name), and a symbol without a size ends where the
// next one starts.
#include <cstdint>
#include <memory>
#include <span>
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

  // A cleaned-up table read in place from a file that stays mapped (the kallsyms cache): starts,
  // sizes, perf's ends and their running maximum, and each name's offset in `names` (NUL
  // terminated). Nothing is copied: a Symbol is made the first time find() returns it, so a
  // report that resolves a dozen kernel addresses pays for a dozen of 120,000 names.
  struct MappedColumns {
    std::shared_ptr<const void> keep_alive;  // the mapping the spans point into
    std::span<const uint64_t> starts, sizes, ends, max_ends;
    std::span<const uint32_t> name_offsets;
    std::string_view names;
    std::span<const uint8_t> bindings;
  };
  static SymbolTable from_mapped(MappedColumns columns);

  // The symbol covering `addr`, or nullptr. Where symbols overlap (a zero-size _init stretched
  // over .plt and the "f@plt" entries), the one perf's symbol tree finds first; the one starting
  // first in tables built without that tree.
  const Symbol* find(uint64_t addr) const;
  // Every symbol by start (a mapped table makes them all on the first call).
  const std::vector<Symbol>& symbols() const;
  bool empty() const { return starts().empty(); }
  // perf's extents and their running maximum, by start: what the clean-ups made of the table.
  std::span<const uint64_t> starts() const;
  std::span<const uint64_t> ends() const;
  std::span<const uint64_t> max_ends() const;

 private:
  void sort_and_index();
  void permute_by_start();  // symbols_ and ends_ into start order (stable)
  const Symbol* symbol_at(size_t index) const;

  // A mapped table's columns and the symbols made of them so far (pointers stay valid).
  struct Mapped;
  std::shared_ptr<Mapped> mapped_;

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
