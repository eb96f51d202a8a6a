#include "probe/probe_resolver.hpp"

#include <dwarf.h>
#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "probe/function_sites.hpp"

namespace sonde::probe {

namespace {

std::string without_spaces(std::string_view text) {
  std::string out;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

// The innermost function (subprogram or inlined instance) whose code holds `vaddr`.
std::optional<Dwarf_Die> function_at(Dwarf* dwarf, uint64_t vaddr) {
  Dwarf_Die cu;
  if (!dwarf_addrdie(dwarf, vaddr, &cu)) return std::nullopt;
  Dwarf_Die* scopes = nullptr;
  int count = dwarf_getscopes(&cu, vaddr, &scopes);
  std::optional<Dwarf_Die> found;
  for (int i = 0; i < count && !found; ++i) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) found = scopes[i];
  }
  std::free(scopes);
  return found;
}

std::string die_name(Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  const char* name =
      dwarf_attr_integrate(die, DW_AT_name, &attribute) ? dwarf_formstring(&attribute) : nullptr;
  return name ? name : "";
}

struct Resolver {
  ProbeBinary& binary;
  const ProbeSpec& spec;
  const ResolveOptions& options;
  std::vector<ResolvedProbe> out;
  unsigned shared_with = 0;  // the line a requested line's address maps back to, when it is another

  Result<void> place(uint64_t vaddr, const std::string& function, uint64_t entry, bool inlined,
                     std::optional<Dwarf_Die> scope_die) {
    auto offset = binary.file_offset(vaddr);
    if (!offset) return failf("{:#x} is not in a loaded segment of {}", vaddr, binary.path());
    ResolvedProbe probe;
    probe.function = function;
    probe.vaddr = vaddr;
    probe.offset = vaddr - entry;
    probe.file_offset = *offset;
    probe.retprobe = spec.point.retprobe;
    probe.inlined = inlined;
    FetchScope scope;
    scope.binary = &binary;
    scope.pc = vaddr;
    scope.retprobe = spec.point.retprobe;
    scope.kernel = options.kernel;
    if (scope_die) {
      scope.function = *scope_die;
      scope.has_function = true;
      probe.scope = dwarf_dieoffset(&*scope_die);
    }
    for (const ProbeArg& arg : spec.args) {
      auto fetched = convert_probe_arg(arg, scope);
      if (!fetched) return tl::unexpected(fetched.error().with_context(fmt::format("at {}", spec.text)));
      for (FetchArg& one : *fetched) probe.args.push_back(std::move(one));
    }
    out.push_back(std::move(probe));
    if (out.size() > options.max_probes)
      return failf("'{}' gives more than {} probes; narrow it down or raise --max-probes", spec.text,
                   options.max_probes);
    return {};
  }

  std::optional<Dwarf_Die> die_at(Dwarf_Off offset) {
    Dwarf_Die die;
    if (!binary.dwarf() || !dwarf_offdie(binary.dwarf(), offset, &die)) return std::nullopt;
    return die;
  }

  // perf skips the prologue of unoptimized code when variables are fetched: the first statement
  // row after the entry on another line.
  uint64_t after_prologue(const FunctionSite& site) {
    auto rows = statement_rows(binary.dwarf(), site.cu, site.low(),
                               site.ranges.empty() ? site.entry + 1 : site.ranges.front().second);
    unsigned entry_line = 0;
    for (const LineAddress& row : rows)
      if (row.address == site.entry) entry_line = row.line;
    for (const LineAddress& row : rows)
      if (row.address > site.entry && row.line != entry_line) return row.address;
    return site.entry;
  }

  Result<std::vector<std::string>> source_lines(const std::string& path) {
    auto text = read_file(path);
    if (!text)
      return failf("cannot read the source file {} for the lazy pattern: {}", path, text.error().message);
    return split(*text, '\n');
  }

  // Rows of `rows` whose source line matches the lazy pattern, first address per line.
  Result<void> place_lazy(const std::vector<LineAddress>& rows, const std::string& function, uint64_t entry,
                          bool inlined, std::optional<Dwarf_Die> scope_die) {
    std::set<std::pair<std::string, unsigned>> done;
    std::string current_path;
    std::vector<std::string> lines;
    for (const LineAddress& row : rows) {
      if (row.line == 0 || !done.insert({std::string(row.file), row.line}).second) continue;
      if (row.file != current_path) {
        auto read = source_lines(std::string(row.file));
        if (!read) return tl::unexpected(read.error());
        lines = std::move(*read);
        current_path = row.file;
      }
      if (row.line > lines.size() || !lazy_match(spec.point.lazy_line, lines[row.line - 1])) continue;
      std::optional<Dwarf_Die> scope = scope_die;
      std::string name = function;
      uint64_t base = entry;
      if (!scope) {
        scope = function_at(binary.dwarf(), row.address);
        if (scope) name = die_name(&*scope);
        Dwarf_Addr start = 0;
        if (scope && dwarf_entrypc(&*scope, &start) == 0) base = start;
      }
      if (auto placed = place(row.address, name, base, inlined, scope); !placed) return placed;
    }
    return {};
  }

  Result<void> at_site(const FunctionSite& site) {
    auto die = die_at(site.die);
    const ProbePoint& point = spec.point;
    if (point.line) {
      auto rows = line_addresses(binary.dwarf(), site.cu, &site, site.decl_file, site.decl_line + point.line,
                                 &shared_with);
      for (const LineAddress& row : rows)
        if (auto placed = place(row.address, site.name, site.entry, site.inlined, die); !placed)
          return placed;
      return {};
    }
    if (!point.lazy_line.empty()) {
      std::vector<LineAddress> rows;
      for (const auto& [low, high] : site.ranges) {
        auto part = statement_rows(binary.dwarf(), site.cu, low, high);
        rows.insert(rows.end(), part.begin(), part.end());
      }
      std::erase_if(rows, [&](const LineAddress& row) { return row.file != site.decl_file; });
      std::sort(rows.begin(), rows.end(), [](const LineAddress& a, const LineAddress& b) {
        return a.line != b.line ? a.line < b.line : a.address < b.address;
      });
      return place_lazy(rows, site.name, site.entry, site.inlined, die);
    }
    uint64_t vaddr = site.entry + point.offset;
    if (point.offset && !site.contains(vaddr))
      return failf("offset {} is past the end of {}", point.offset, site.name);
    if (!point.offset && !site.optimized && !spec.args.empty()) vaddr = after_prologue(site);
    return place(vaddr, site.name, site.entry, site.inlined, die);
  }

  Result<void> with_dwarf() {
    const ProbePoint& point = spec.point;
    Dwarf* dwarf = binary.dwarf();
    if (point.function.empty()) {
      // SRC:ALN or SRC;PTN
      auto cus = cus_for_file(dwarf, point.file);
      if (cus.empty())
        return failf("no source file '{}' in the debug information of {}", point.file, binary.path());
      for (Dwarf_Off cu : cus) {
        if (point.line) {
          for (const LineAddress& row :
               line_addresses(dwarf, cu, nullptr, point.file, point.line, &shared_with)) {
            auto scope = function_at(dwarf, row.address);
            std::string name = scope ? die_name(&*scope) : "";
            Dwarf_Addr entry = row.address;
            if (scope) dwarf_entrypc(&*scope, &entry);
            bool inlined = scope && dwarf_tag(&*scope) == DW_TAG_inlined_subroutine;
            if (auto placed = place(row.address, name, entry, inlined, scope); !placed) return placed;
          }
        } else {
          auto rows = statement_rows(dwarf, cu, 0, UINT64_MAX);
          std::erase_if(rows,
                        [&](const LineAddress& row) { return !path_tail_matches(row.file, point.file); });
          std::sort(rows.begin(), rows.end(), [](const LineAddress& a, const LineAddress& b) {
            return a.line != b.line ? a.line < b.line : a.address < b.address;
          });
          if (auto placed = place_lazy(rows, "", 0, false, std::nullopt); !placed) return placed;
        }
      }
      if (out.empty() && point.line && shared_with)
        return failf("line {} of {} shares its address with line {}: probe line {} instead", point.line,
                     point.file, shared_with, shared_with);
      if (out.empty())
        return point.line ? failf("line {} of {} has no code to probe (see -L for the lines that do)",
                                  point.line, point.file)
                          : failf("no line of {} matches '{}'", point.file, point.lazy_line);
      return {};
    }
    SiteQuery query{point.function, point.file, options.inlines && !point.retprobe};
    query.decl_files = point.line || !point.lazy_line.empty();
    if (!is_glob_pattern(point.function) && point.function.find("::") == std::string::npos)
      query.global_symbol_addresses = binary.global_symbol_addresses(point.function);
    auto sites = find_function_sites(dwarf, query);
    if (sites.empty()) return with_symbols(true);
    for (const FunctionSite& site : sites)
      if (auto placed = at_site(site); !placed) return placed;
    if (out.empty()) {
      if (point.line && shared_with)
        return failf("line {} of {} shares its address with line {} of the file: probe {}:{} instead",
                     point.line, point.function, shared_with, point.function,
                     shared_with - sites.front().decl_line);
      if (point.line)
        return failf("line {} of {} has no code to probe (see -L {} for the lines that do)", point.line,
                     point.function, point.function);
      if (!point.lazy_line.empty())
        return failf("no line of {} matches '{}'", point.function, point.lazy_line);
    }
    return {};
  }

  // From the symbol table: exact names and globs, aliases included (malloc and __libc_malloc
  // are one address). DWARF, when there is some, still gives the scope for variables.
  Result<void> with_symbols(bool have_dwarf) {
    const ProbePoint& point = spec.point;
    if (!have_dwarf && (point.line || !point.lazy_line.empty() || !point.file.empty()))
      return fail(binary.missing_debug_info_hint());
    bool glob = is_glob_pattern(point.function);
    // A name with a default version (memcpy@@GLIBC_2.14) leaves out its older versions
    // (memcpy@GLIBC_2.2.5): one function per name, as the dynamic linker binds it.
    std::set<std::string> has_default;
    for (const symbols::RawSymbol& symbol : binary.function_symbols()) {
      size_t at = symbol.name.find('@');
      if (at == std::string::npos || symbol.name.compare(at, 2, "@@") == 0)
        has_default.insert(symbol.name.substr(0, at));
    }
    std::set<uint64_t> seen;
    for (const symbols::RawSymbol& symbol : binary.function_symbols()) {
      std::string_view name = symbol.name;
      size_t at = name.find('@');
      if (at != std::string_view::npos) {
        name = name.substr(0, at);
        if (symbol.name.compare(at, 2, "@@") != 0 && has_default.contains(std::string(name))) continue;
      }
      if (glob ? !glob_match(point.function, name) : name != point.function) continue;
      if (!seen.insert(symbol.start).second) continue;
      std::optional<Dwarf_Die> scope;
      std::string function(name);
      if (binary.dwarf()) {
        scope = function_at(binary.dwarf(), symbol.start);
        // Probed by its alias, the event still carries the name the user gave (perf's rule).
        if (scope && (point.line || !point.lazy_line.empty())) {
          return failf("'{}' is an alias of {}: give that name for line probes", point.function,
                       die_name(&*scope));
        }
      }
      if (point.offset && symbol.size && point.offset >= symbol.size)
        return failf("offset {} is past the end of {} ({} bytes)", point.offset, function, symbol.size);
      if (auto placed = place(symbol.start + point.offset, function, symbol.start, false, scope); !placed)
        return placed;
    }
    if (out.empty())
      return failf("no function '{}' in {} (see -F for the functions there are)", point.function,
                   binary.path());
    return {};
  }

  Result<void> at_address(uint64_t vaddr) {
    std::optional<Dwarf_Die> scope;
    std::string name;
    uint64_t entry = vaddr;
    if (binary.dwarf()) scope = function_at(binary.dwarf(), vaddr);
    if (const symbols::RawSymbol* symbol = binary.symbol_at(vaddr)) {
      name = symbol->name;
      entry = symbol->start;
    }
    return place(vaddr, name, entry, false, scope);
  }
};

}  // namespace

bool lazy_match(std::string_view pattern, std::string_view text) {
  return glob_match(without_spaces(pattern), without_spaces(text));
}

Result<std::vector<ResolvedProbe>> resolve_user_probe(ProbeBinary& binary, const ProbeSpec& spec,
                                                      const ResolveOptions& options) {
  Resolver resolver{binary, spec, options, {}, 0};
  Result<void> done = spec.point.address ? resolver.at_address(*spec.point.address)
                      : binary.dwarf()   ? resolver.with_dwarf()
                                         : resolver.with_symbols(false);
  if (!done) return tl::unexpected(done.error());
  return std::move(resolver.out);
}

}  // namespace sonde::probe
