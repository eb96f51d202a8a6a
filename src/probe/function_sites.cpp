#include "probe/function_sites.hpp"

#include <dwarf.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>

#include "base/strings.hpp"

namespace sonde::probe {

namespace {

std::string linkage_name(Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  const char* name = nullptr;
  if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attribute) ||
      dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attribute))
    name = dwarf_formstring(&attribute);
  return name ? name : "";
}

// "Counter::bump" for a method: the names of the scopes around its declaration.
std::string qualified_name(Dwarf_Die* die, const char* name) {
  Dwarf_Die declaration = *die;
  Dwarf_Attribute attribute;
  for (int hops = 0; hops < 4; ++hops) {
    if (dwarf_attr(&declaration, DW_AT_specification, &attribute) ||
        dwarf_attr(&declaration, DW_AT_abstract_origin, &attribute)) {
      Dwarf_Die target;
      if (!dwarf_formref_die(&attribute, &target)) break;
      declaration = target;
    } else {
      break;
    }
  }
  Dwarf_Die* scopes = nullptr;
  int count = dwarf_getscopes_die(&declaration, &scopes);
  std::string qualified = name;
  for (int i = 1; i < count; ++i) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
        tag != DW_TAG_union_type)
      continue;
    const char* scope = dwarf_diename(&scopes[i]);
    qualified = std::string(scope ? scope : "(anonymous namespace)") + "::" + qualified;
  }
  std::free(scopes);
  return qualified;
}

bool has_code(Dwarf_Die* die) { return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges); }

bool cu_optimized(Dwarf_Die* cu) {
  Dwarf_Attribute attribute;
  const char* producer = dwarf_attr(cu, DW_AT_producer, &attribute) ? dwarf_formstring(&attribute) : nullptr;
  if (!producer) return true;
  for (const char* p = std::strstr(producer, "-O"); p; p = std::strstr(p + 2, "-O"))
    if (p[2] != '0') return true;
  return false;
}

struct Walk {
  const SiteQuery& query;
  bool qualified_query;
  std::string_view last_component;  // of a qualified query
  Dwarf_Off cu_offset;
  bool optimized;
  std::vector<FunctionSite>& out;

  bool matches(Dwarf_Die* die) {
    const char* name = integrated_name(die);
    if (!name) return false;
    if (qualified_query) {
      if (!glob_match(last_component, name)) return false;
      return glob_match(query.function, qualified_name(die, name));
    }
    if (glob_match(query.function, name)) return true;
    // A mangled name given as the function (what perf -F lists without --demangle).
    if (!query.function.starts_with("_Z")) return false;
    std::string linkage = linkage_name(die);
    return !linkage.empty() && query.function == linkage;
  }

  void add(Dwarf_Die* die, bool inlined) {
    FunctionSite site;
    site.name = integrated_name(die);
    site.linkage = linkage_name(die);
    site.inlined = inlined;
    site.die = dwarf_dieoffset(die);
    site.cu = cu_offset;
    site.optimized = optimized;
    Dwarf_Addr base = 0, low = 0, high = 0;
    for (ptrdiff_t it = 0; (it = dwarf_ranges(die, it, &base, &low, &high)) > 0;)
      if (high > low) site.ranges.emplace_back(low, high);
    std::sort(site.ranges.begin(), site.ranges.end());
    Dwarf_Addr entry = 0;
    if (dwarf_entrypc(die, &entry) == 0)
      site.entry = entry;
    else if (!site.ranges.empty())
      site.entry = site.ranges.front().first;
    else
      return;
    if (query.decl_files || !query.file.empty())
      if (const char* file = dwarf_decl_file(die)) site.decl_file = file;
    int line = 0;
    if (dwarf_decl_line(die, &line) == 0) site.decl_line = static_cast<unsigned>(line);
    if (!query.file.empty() && !path_tail_matches(site.decl_file, query.file)) return;
    out.push_back(std::move(site));
  }

  // Abstract definitions (DW_AT_inline) that match: their inlined instances are sites too.
  std::set<Dwarf_Off> abstract_matches;

  // The CU's functions, without entering their bodies (cheap: DW_AT_sibling skips them).
  void outline(Dwarf_Die* parent) {
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0) return;
    do {
      int tag = dwarf_tag(&child);
      if (tag == DW_TAG_namespace) {
        outline(&child);
      } else if (tag == DW_TAG_subprogram && matches(&child)) {
        if (has_code(&child) && !dwarf_hasattr(&child, DW_AT_declaration)) add(&child, false);
        if (dwarf_hasattr(&child, DW_AT_inline)) abstract_matches.insert(dwarf_dieoffset(&child));
      }
    } while (dwarf_siblingof(&child, &child) == 0);
  }

  // Function bodies, for inlined instances of the abstract definitions found.
  void inlined(Dwarf_Die* parent) {
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0) return;
    do {
      switch (dwarf_tag(&child)) {
        case DW_TAG_inlined_subroutine: {
          Dwarf_Attribute attribute;
          Dwarf_Die origin;
          if (dwarf_attr(&child, DW_AT_abstract_origin, &attribute) &&
              dwarf_formref_die(&attribute, &origin) && abstract_matches.contains(dwarf_dieoffset(&origin)))
            add(&child, true);
          inlined(&child);
          break;
        }
        case DW_TAG_subprogram:
        case DW_TAG_lexical_block:
        case DW_TAG_namespace:
          inlined(&child);
          break;
        default:
          break;
      }
    } while (dwarf_siblingof(&child, &child) == 0);
  }
};

template <typename Visit>
void for_each_cu(Dwarf* dwarf, Visit visit) {
  Dwarf_Off offset = 0, next = 0;
  size_t header_size = 0;
  while (dwarf_nextcu(dwarf, offset, &next, &header_size, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dwarf, offset + header_size, &cu) && dwarf_tag(&cu) == DW_TAG_compile_unit) visit(cu);
    offset = next;
  }
}

}  // namespace

const char* integrated_name(Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  if (!dwarf_attr_integrate(die, DW_AT_name, &attribute)) return nullptr;
  return dwarf_formstring(&attribute);
}

bool FunctionSite::contains(uint64_t vaddr) const {
  for (const auto& [low, high] : ranges)
    if (vaddr >= low && vaddr < high) return true;
  return false;
}

bool path_tail_matches(std::string_view path, std::string_view suffix) {
  if (suffix.empty()) return true;
  if (!path.ends_with(suffix)) return false;
  return path.size() == suffix.size() || path[path.size() - suffix.size() - 1] == '/' ||
         suffix.front() == '/';
}

std::string cu_file_name(Dwarf_Die* cu) {
  const char* name = dwarf_diename(cu);
  if (!name) return "";
  if (name[0] == '/') return name;
  Dwarf_Attribute attribute;
  const char* dir = dwarf_attr(cu, DW_AT_comp_dir, &attribute) ? dwarf_formstring(&attribute) : nullptr;
  return dir ? std::string(dir) + "/" + name : std::string(name);
}

std::vector<FunctionSite> find_function_sites(Dwarf* dwarf, const SiteQuery& query) {
  std::vector<FunctionSite> sites;
  size_t scope = query.function.rfind("::");
  Walk walk{
      query,
      scope != std::string::npos,
      scope == std::string::npos ? std::string_view() : std::string_view(query.function).substr(scope + 2),
      0,
      true,
      sites,
      {}};
  // Out-of-line bodies first, then inline instances (only bodies that may hold some are read).
  std::vector<Dwarf_Off> only_cus;
  for (uint64_t address : query.global_symbol_addresses) {
    Dwarf_Die cu;
    Dwarf_Attribute attribute;
    const char* producer = nullptr;
    if (!dwarf_addrdie(dwarf, address, &cu) ||
        ((producer = dwarf_attr(&cu, DW_AT_producer, &attribute) ? dwarf_formstring(&attribute) : nullptr) &&
         std::strstr(producer, "GNU GIMPLE"))) {
      only_cus.clear();  // not found, or link-time optimized: read every CU
      break;
    }
    if (std::find(only_cus.begin(), only_cus.end(), dwarf_dieoffset(&cu)) == only_cus.end())
      only_cus.push_back(dwarf_dieoffset(&cu));
  }
  auto visit_cus = [&](auto&& visit) {
    if (only_cus.empty()) return for_each_cu(dwarf, visit);
    for (Dwarf_Off offset : only_cus) {
      Dwarf_Die cu;
      if (dwarf_offdie(dwarf, offset, &cu)) visit(cu);
    }
  };
  visit_cus([&](Dwarf_Die& cu) {
    walk.cu_offset = dwarf_dieoffset(&cu);
    walk.optimized = cu_optimized(&cu);
    walk.outline(&cu);
  });
  if (query.inlines && !walk.abstract_matches.empty())
    visit_cus([&](Dwarf_Die& cu) {
      walk.cu_offset = dwarf_dieoffset(&cu);
      walk.optimized = cu_optimized(&cu);
      walk.inlined(&cu);
    });
  return sites;
}

std::vector<LineAddress> statement_rows(Dwarf* dwarf, Dwarf_Off cu_offset, uint64_t low, uint64_t high) {
  std::vector<LineAddress> rows;
  Dwarf_Die cu;
  if (!dwarf_offdie(dwarf, cu_offset, &cu)) return rows;
  Dwarf_Lines* lines = nullptr;
  size_t count = 0;
  if (dwarf_getsrclines(&cu, &lines, &count) != 0) return rows;
  Dwarf_Addr previous = UINT64_MAX;
  for (size_t i = 0; i < count; ++i) {
    Dwarf_Line* row = dwarf_onesrcline(lines, i);
    int number = 0;
    bool statement = false, end = false;
    Dwarf_Addr address = 0;
    if (!row || dwarf_lineno(row, &number) != 0 || dwarf_lineaddr(row, &address) != 0) continue;
    if (dwarf_lineendsequence(row, &end) == 0 && end) {
      previous = UINT64_MAX;  // the next sequence's first row starts afresh
      continue;
    }
    if (dwarf_linebeginstatement(row, &statement) != 0 || !statement) continue;
    bool first = address != previous;  // the first statement row at its address
    previous = address;
    if (address < low || address >= high) continue;
    const char* name = dwarf_linesrc(row, nullptr, nullptr);
    rows.push_back(
        {address, name ? std::string_view(name) : std::string_view(), static_cast<unsigned>(number), first});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const LineAddress& a, const LineAddress& b) { return a.address < b.address; });
  return rows;
}

std::vector<LineAddress> line_addresses(Dwarf* dwarf, Dwarf_Off cu_offset, const FunctionSite* site,
                                        std::string_view file, unsigned line, unsigned* shared_with) {
  std::vector<LineAddress> found;
  uint64_t low = 0, high = UINT64_MAX;
  std::vector<LineAddress> rows = statement_rows(dwarf, cu_offset, low, high);
  // The line each address maps back to: its first row.
  std::vector<const LineAddress*> firsts;
  for (const LineAddress& row : rows)
    if (row.first_at_address) firsts.push_back(&row);
  auto first_line_at = [&](uint64_t address) -> unsigned {
    auto it = std::lower_bound(firsts.begin(), firsts.end(), address,
                               [](const LineAddress* row, uint64_t value) { return row->address < value; });
    return it != firsts.end() && (*it)->address == address ? (*it)->line : 0;
  };
  for (const LineAddress& row : rows) {
    if (row.line != line || !path_tail_matches(row.file, file)) continue;
    if (site && !site->contains(row.address)) continue;
    unsigned mapped = first_line_at(row.address);
    if (mapped != 0 && mapped != line) {
      if (shared_with && !*shared_with) *shared_with = mapped;
      continue;
    }
    found.push_back(row);
  }
  found.erase(std::unique(found.begin(), found.end(),
                          [](const LineAddress& a, const LineAddress& b) { return a.address == b.address; }),
              found.end());
  return found;
}

std::optional<Dwarf_Die> subprogram_at(Dwarf* dwarf, uint64_t vaddr) {
  Dwarf_Die cu;
  if (!dwarf_addrdie(dwarf, vaddr, &cu)) return std::nullopt;
  std::optional<Dwarf_Die> found;
  auto search = [&](auto&& self, Dwarf_Die* parent) -> void {
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0) return;
    do {
      int tag = dwarf_tag(&child);
      if (tag == DW_TAG_subprogram && dwarf_haspc(&child, vaddr) == 1) {
        found = child;
        return;
      }
      if (tag == DW_TAG_namespace) self(self, &child);
    } while (!found && dwarf_siblingof(&child, &child) == 0);
  };
  search(search, &cu);
  return found;
}

std::vector<Dwarf_Die> scope_chain(Dwarf_Die function, uint64_t vaddr) {
  std::vector<Dwarf_Die> chain{function};
  for (bool deeper = true; deeper;) {
    deeper = false;
    Dwarf_Die child;
    if (dwarf_child(&chain.back(), &child) != 0) break;
    do {
      int tag = dwarf_tag(&child);
      if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) &&
          dwarf_haspc(&child, vaddr) == 1) {
        chain.push_back(child);
        deeper = true;
        break;
      }
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

std::vector<Dwarf_Off> cus_for_file(Dwarf* dwarf, std::string_view file) {
  std::vector<Dwarf_Off> cus;
  for_each_cu(dwarf, [&](Dwarf_Die& cu) {
    Dwarf_Files* files = nullptr;
    size_t count = 0;
    if (path_tail_matches(cu_file_name(&cu), file)) {
      cus.push_back(dwarf_dieoffset(&cu));
      return;
    }
    if (dwarf_getsrcfiles(&cu, &files, &count) != 0) return;
    for (size_t i = 0; i < count; ++i) {
      const char* name = dwarf_filesrc(files, i, nullptr, nullptr);
      if (name && path_tail_matches(name, file)) {
        cus.push_back(dwarf_dieoffset(&cu));
        return;
      }
    }
  });
  return cus;
}

}  // namespace sonde::probe
