#include "symbols/dwarf_info.hpp"

#include <dwarf.h>

#include <algorithm>
#include <cstdlib>

#include "symbols/demangle.hpp"

namespace sonde::symbols {

std::unique_ptr<DwarfInfo> DwarfInfo::open(Elf* elf) {
  if (!elf) return nullptr;
  Dwarf* dwarf = dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
  if (!dwarf) return nullptr;
  return std::unique_ptr<DwarfInfo>(new DwarfInfo(dwarf));
}

DwarfInfo::~DwarfInfo() { dwarf_end(dwarf_); }

bool DwarfInfo::cu_for(uint64_t vaddr, Dwarf_Die* cu) {
  if (dwarf_addrdie(dwarf_, vaddr, cu)) return true;
  if (!cu_ranges_) {
    cu_ranges_.emplace();
    Dwarf_Off offset = 0, next = 0;
    size_t header_size = 0;
    while (dwarf_nextcu(dwarf_, offset, &next, &header_size, nullptr, nullptr, nullptr) == 0) {
      Dwarf_Die die;
      if (dwarf_offdie(dwarf_, offset + header_size, &die)) {
        Dwarf_Addr base = 0, low = 0, high = 0;
        for (ptrdiff_t it = 0; (it = dwarf_ranges(&die, it, &base, &low, &high)) > 0;)
          if (high > low) cu_ranges_->push_back({low, high, offset + header_size});
      }
      offset = next;
    }
    std::sort(cu_ranges_->begin(), cu_ranges_->end(),
              [](const CuRange& a, const CuRange& b) { return a.low < b.low; });
  }
  // The ranges starting at or before vaddr, nearest first (a few may overlap).
  auto it = std::upper_bound(cu_ranges_->begin(), cu_ranges_->end(), vaddr,
                             [](uint64_t value, const CuRange& r) { return value < r.low; });
  for (int checked = 0; it != cu_ranges_->begin() && checked < 16; ++checked) {
    --it;
    if (vaddr < it->high) return dwarf_offdie(dwarf_, it->die_offset, cu) != nullptr;
  }
  return false;
}

std::optional<SourceLine> DwarfInfo::line(uint64_t vaddr) {
  Dwarf_Die cu;
  if (!cu_for(vaddr, &cu)) return std::nullopt;
  Dwarf_Line* row = dwarf_getsrc_die(&cu, vaddr);
  if (!row) return std::nullopt;
  int number = 0;
  const char* file = dwarf_linesrc(row, nullptr, nullptr);
  if (!file || dwarf_lineno(row, &number) != 0) return std::nullopt;
  unsigned discriminator = 0;
  if (dwarf_linediscriminator(row, &discriminator) != 0) discriminator = 0;
  return SourceLine{file, static_cast<unsigned>(number), discriminator};
}

namespace {

std::string function_name(Dwarf_Die* die, bool demangle_names) {
  Dwarf_Attribute attribute;
  const char* linkage = nullptr;
  if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attribute) ||
      dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attribute))
    linkage = dwarf_formstring(&attribute);
  if (linkage) {
    if (demangle_names) {
      if (auto demangled = demangle(linkage)) return *demangled;
    }
    return linkage;
  }
  const char* name = dwarf_diename(die);
  if (!name && dwarf_attr_integrate(die, DW_AT_name, &attribute)) name = dwarf_formstring(&attribute);
  return name ? name : "";
}

}  // namespace

std::string DwarfInfo::subprogram_name(uint64_t vaddr, bool demangle_names) {
  Dwarf_Die cu;
  if (!cu_for(vaddr, &cu)) return "";
  Dwarf_Die* scopes = nullptr;
  int count = dwarf_getscopes(&cu, vaddr, &scopes);
  std::string name;
  for (int i = 0; i < count && name.empty(); ++i)
    if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) name = function_name(&scopes[i], demangle_names);
  std::free(scopes);
  return name;
}

namespace {

void collect_scopes(Dwarf_Die* die, int depth, uint64_t start, uint64_t end, std::vector<FunctionScope>& out);

// The subroutines inlined under `die`, through lexical blocks (which have no name of their own).
void collect_children(Dwarf_Die* die, int depth, uint64_t start, uint64_t end,
                      std::vector<FunctionScope>& out) {
  Dwarf_Die child;
  if (dwarf_child(die, &child) != 0) return;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_inlined_subroutine)
      collect_scopes(&child, depth + 1, start, end, out);
    else if (tag == DW_TAG_lexical_block)
      collect_children(&child, depth, start, end, out);
  } while (dwarf_siblingof(&child, &child) == 0);
}

void collect_scopes(Dwarf_Die* die, int depth, uint64_t start, uint64_t end,
                    std::vector<FunctionScope>& out) {
  ptrdiff_t offset = 0;
  Dwarf_Addr base = 0, low = 0, high = 0;
  std::string name;
  while ((offset = dwarf_ranges(die, offset, &base, &low, &high)) > 0) {
    if (high <= start || low >= end) continue;
    if (name.empty()) name = function_name(die, false);
    out.push_back({low, high, depth, name});
  }
  collect_children(die, depth, start, end, out);
}

}  // namespace

std::vector<FunctionScope> DwarfInfo::function_scopes(uint64_t start, uint64_t end) {
  std::vector<FunctionScope> out;
  Dwarf_Die cu;
  if (!cu_for(start, &cu)) return out;
  Dwarf_Die* scopes = nullptr;
  int count = dwarf_getscopes(&cu, start, &scopes);
  // Past an inlined instance dwarf_getscopes goes on with its abstract definition's parents:
  // the holding function is found among the concrete parents of that instance instead.
  for (int i = 0; i < count; ++i)
    if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
      Dwarf_Die* chain = nullptr;
      int chain_count = dwarf_getscopes_die(&scopes[i], &chain);
      std::free(scopes);
      scopes = chain;
      count = chain_count;
      break;
    }
  for (int i = 0; i < count; ++i)
    if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
      collect_scopes(&scopes[i], 0, start, end, out);
      break;
    }
  std::free(scopes);
  return out;
}

std::string DwarfInfo::compilation_dir(uint64_t vaddr) {
  Dwarf_Die cu;
  if (!cu_for(vaddr, &cu)) return "";
  Dwarf_Attribute attribute;
  const char* dir =
      dwarf_attr_integrate(&cu, DW_AT_comp_dir, &attribute) ? dwarf_formstring(&attribute) : nullptr;
  return dir ? dir : "";
}

std::vector<InlineFrame> DwarfInfo::inline_frames(uint64_t vaddr, bool demangle_names) {
  std::vector<InlineFrame> frames;
  Dwarf_Die cu;
  if (!cu_for(vaddr, &cu)) return frames;
  Dwarf_Die* scopes = nullptr;
  int count = dwarf_getscopes(&cu, vaddr, &scopes);
  if (count <= 0) return frames;
  // After an inlined instance, dwarf_getscopes continues with its abstract definition's
  // parents; the callers are the concrete parents of the innermost inlined instance instead.
  int innermost = -1;
  for (int i = 0; i < count && innermost < 0; ++i)
    if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) innermost = i;
  Dwarf_Die* chain = nullptr;
  int chain_count = innermost < 0 ? 0 : dwarf_getscopes_die(&scopes[innermost], &chain);
  std::free(scopes);
  if (chain_count <= 0) return frames;
  Dwarf_Files* files = nullptr;
  size_t file_count = 0;
  dwarf_getsrcfiles(&cu, &files, &file_count);

  auto where = line(vaddr);
  std::string file = where ? where->file : "";
  unsigned line_number = where ? where->line : 0;
  for (int i = 0; i < chain_count; ++i) {
    int tag = dwarf_tag(&chain[i]);
    if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram) continue;
    frames.push_back(InlineFrame{function_name(&chain[i], demangle_names), file, line_number});
    if (tag == DW_TAG_subprogram) break;
    // Where this inlined instance sits in its caller: the next frame's location.
    Dwarf_Attribute attribute;
    Dwarf_Word call_file = 0, call_line = 0;
    file.clear();
    line_number = 0;
    if (dwarf_attr(&chain[i], DW_AT_call_file, &attribute) && dwarf_formudata(&attribute, &call_file) == 0 &&
        files) {
      const char* name = dwarf_filesrc(files, call_file, nullptr, nullptr);
      if (name) file = name;
    }
    if (dwarf_attr(&chain[i], DW_AT_call_line, &attribute) && dwarf_formudata(&attribute, &call_line) == 0)
      line_number = static_cast<unsigned>(call_line);
  }
  std::free(chain);
  return frames;
}

}  // namespace sonde::symbols
