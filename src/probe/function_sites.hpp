#pragma once
// Where a named function's code is, from DWARF: its out-of-line body and every inline instance,
// each with its entry address, code ranges, declaration line and CU; and the line table rows a
// line or lazy-pattern probe lands on. libdw does the reading.
#include <elfutils/libdw.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sonde::probe {

struct FunctionSite {
  std::string name;     // DWARF name ("bump" for Counter::bump; its linkage name in `linkage`)
  std::string linkage;  // DW_AT_linkage_name, "" for C
  uint64_t entry = 0;   // entry pc (ELF virtual address)
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [low, high)
  bool inlined = false;                               // an inlined instance (DW_TAG_inlined_subroutine)
  Dwarf_Off die = 0;                                  // the concrete DIE
  Dwarf_Off cu = 0;                                   // its CU's DIE
  std::string decl_file;  // the function's declaration (of its abstract origin for an instance)
  unsigned decl_line = 0;
  bool optimized = true;  // the CU was built with optimization (perf skips the prologue otherwise)

  bool contains(uint64_t vaddr) const;
  uint64_t low() const { return ranges.empty() ? entry : ranges.front().first; }
};

struct SiteQuery {
  std::string function;  // a name, a glob, or "Class::method"
  std::string file;      // @SRC: only CUs (or declarations) whose file path ends with it
  bool inlines = true;   // inline instances too
  // Addresses of the function's global symbols: only the CUs holding them are read. Without LTO
  // a function with external linkage is defined, and can be inlined, only in its own CU.
  std::vector<uint64_t> global_symbol_addresses;
  // Whether sites need their declaration file (line probes, lazy patterns, @SRC, -L): libdw
  // reads the CU's whole line table for it, the biggest cost of a probe in a large CU.
  bool decl_files = true;
};

// Every site matching, in DWARF order (out-of-line bodies before the inline instances of each
// CU). Declarations without code are skipped.
std::vector<FunctionSite> find_function_sites(Dwarf* dwarf, const SiteQuery& query);

// The DIE's DW_AT_name, through DW_AT_abstract_origin and DW_AT_specification; null without one.
const char* integrated_name(Dwarf_Die* die);
// The CU's path names: its DW_AT_name with DW_AT_comp_dir in front when relative.
std::string cu_file_name(Dwarf_Die* cu);
// Whether `path` is `suffix` or ends with "/" + suffix (perf's strtailcmp on file names).
bool path_tail_matches(std::string_view path, std::string_view suffix);

struct LineAddress {
  uint64_t address = 0;
  std::string_view file;  // libdw's string: valid while the Dwarf is open
  unsigned line = 0;
  // The first statement row at its address: the line the address maps back to (perf's test
  // that a line does not merely share another line's address).
  bool first_at_address = true;
};
// The statement rows of `file` at `line` inside `site` (or anywhere in the CU when `site` is
// null and `cu` is given) that map back to the line, one per distinct address, lowest first;
// `shared_with`, when given, gets the line an address of `line` maps back to instead.
std::vector<LineAddress> line_addresses(Dwarf* dwarf, Dwarf_Off cu, const FunctionSite* site,
                                        std::string_view file, unsigned line,
                                        unsigned* shared_with = nullptr);
// Every statement row of the CU in [low, high), by address, each marked whether it is the first
// row at its address: lines a -L listing marks.
std::vector<LineAddress> statement_rows(Dwarf* dwarf, Dwarf_Off cu, uint64_t low, uint64_t high);

// The out-of-line function (DW_TAG_subprogram) whose code holds `vaddr`. dwarf_getscopes is no
// help here: past an inlined instance it climbs the abstract definition's parents.
std::optional<Dwarf_Die> subprogram_at(Dwarf* dwarf, uint64_t vaddr);
// The scopes from `function` down to `vaddr` (lexical blocks and inlined instances holding it,
// as perf walks them), innermost first, ending with `function`.
std::vector<Dwarf_Die> scope_chain(Dwarf_Die function, uint64_t vaddr);

// CUs whose file ends with `file`; a source file given with SRC:ALN.
std::vector<Dwarf_Off> cus_for_file(Dwarf* dwarf, std::string_view file);

}  // namespace sonde::probe
