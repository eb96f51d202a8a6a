#pragma once
// Source lines and inline frames from one file's DWARF (libdw): the line table row covering an
// address, and the chain of inlined subroutines around it. libdw handles compressed sections
// and .gnu_debugaltlink (dwz) files.
#include <elfutils/libdw.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "symbols/symbolizer.hpp"

namespace sonde::symbols {

struct SourceLine {
  std::string file;  // as the line table names it (usually an absolute path)
  unsigned line = 0;
  unsigned discriminator = 0;  // the row's DWARF discriminator (objdump -l prints it), 0 when none
};

// An address range of a function's code: the function itself (depth 0) or a subroutine inlined
// in it (depth 1 and more), named as stored (the linkage name when there is one).
struct FunctionScope {
  uint64_t low = 0, high = 0;  // [low, high)
  int depth = 0;
  std::string name;
};

class DwarfInfo {
 public:
  // nullptr when `elf` has no DWARF.
  static std::unique_ptr<DwarfInfo> open(Elf* elf);
  ~DwarfInfo();
  DwarfInfo(const DwarfInfo&) = delete;
  DwarfInfo& operator=(const DwarfInfo&) = delete;

  // The line table row for `vaddr` (an ELF virtual address), or nullopt.
  std::optional<SourceLine> line(uint64_t vaddr);
  // Inlined frames at `vaddr`, innermost first, then the function holding them; empty when
  // no inlined subroutine covers it.
  std::vector<InlineFrame> inline_frames(uint64_t vaddr, bool demangle);
  // The name of the function (DW_TAG_subprogram) whose code holds `vaddr`, "" when none does.
  std::string subprogram_name(uint64_t vaddr, bool demangle);
  // The ranges of the function whose code holds `start` and of every subroutine inlined in it,
  // those that overlap [start, end): one walk of its DIEs, for naming each of many addresses.
  std::vector<FunctionScope> function_scopes(uint64_t start, uint64_t end);
  // The DW_AT_comp_dir of the compilation unit holding `vaddr`, "" when it has none.
  std::string compilation_dir(uint64_t vaddr);

 private:
  explicit DwarfInfo(Dwarf* dwarf) : dwarf_(dwarf) {}
  bool cu_for(uint64_t vaddr, Dwarf_Die* cu);

  Dwarf* dwarf_;
  struct CuRange {
    uint64_t low = 0, high = 0;  // [low, high)
    Dwarf_Off die_offset = 0;
  };
  // Every CU's address ranges, sorted, built on the first address .debug_aranges does not
  // cover (clang and some assemblers emit no aranges).
  std::optional<std::vector<CuRange>> cu_ranges_;
};

}  // namespace sonde::symbols
