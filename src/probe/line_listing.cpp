#include "probe/line_listing.hpp"

#include <dwarf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <map>
#include <optional>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "probe/function_sites.hpp"
#include "probe/line_program.hpp"

namespace sonde::probe {

namespace {

struct CallSite {
  std::string file;
  unsigned line = 0;
};

// File names by index: the decoded program's when there is one, else libdw's.
std::string file_at(Dwarf_Die* cu, const LineProgram* program, Dwarf_Word index) {
  if (program) {
    const std::string* name = program->file_name(index);
    return name ? *name : std::string();
  }
  Dwarf_Files* files = nullptr;
  size_t count = 0;
  if (dwarf_getsrcfiles(cu, &files, &count) == 0 && index < count)
    if (const char* name = dwarf_filesrc(files, index, nullptr, nullptr)) return name;
  return "";
}

// A DIE's declaration file (through its abstract origin or specification).
std::string decl_file_of(Dwarf_Die* die, Dwarf_Die* cu, const LineProgram* program) {
  if (!program) {
    const char* name = dwarf_decl_file(die);
    return name ? name : "";
  }
  Dwarf_Attribute attribute;
  Dwarf_Word index = 0;
  if (!dwarf_attr_integrate(die, DW_AT_decl_file, &attribute) || dwarf_formudata(&attribute, &index) != 0)
    return "";
  return file_at(cu, program, index);
}

CallSite call_site(Dwarf_Die* inlined, Dwarf_Die* cu, const LineProgram* program = nullptr) {
  CallSite site;
  Dwarf_Attribute attribute;
  Dwarf_Word value = 0;
  if (dwarf_attr(inlined, DW_AT_call_line, &attribute) && dwarf_formudata(&attribute, &value) == 0)
    site.line = static_cast<unsigned>(value);
  if (program) {
    if (dwarf_attr(inlined, DW_AT_call_file, &attribute) && dwarf_formudata(&attribute, &value) == 0)
      site.file = file_at(cu, program, value);
    return site;
  }
  Dwarf_Files* files = nullptr;
  size_t count = 0;
  if (dwarf_attr(inlined, DW_AT_call_file, &attribute) && dwarf_formudata(&attribute, &value) == 0 &&
      dwarf_getsrcfiles(cu, &files, &count) == 0 && value < count)
    if (const char* name = dwarf_filesrc(files, value, nullptr, nullptr)) site.file = name;
  return site;
}

// A CU's statement rows, and the line each address maps back to (its first statement row).
struct CuLines {
  std::vector<LineAddress> rows;
  std::map<uint64_t, const LineAddress*> first_at;

  CuLines(Dwarf* dwarf, Dwarf_Off cu, uint64_t low = 0, uint64_t high = UINT64_MAX)
      : rows(statement_rows(dwarf, cu, low, high)) {
    index();
  }
  // The statement rows of a decoded program (which must outlive this), by address.
  explicit CuLines(const LineProgram& program) {
    uint64_t previous = UINT64_MAX;
    for (const LineProgram::Row& row : program.rows) {
      if (row.end_sequence) {
        previous = UINT64_MAX;
        continue;
      }
      if (!row.statement) continue;
      bool first = row.address != previous;
      previous = row.address;
      const std::string* name = program.file_name(row.file);
      rows.push_back({row.address, name ? std::string_view(*name) : std::string_view(), row.line, first});
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const LineAddress& a, const LineAddress& b) { return a.address < b.address; });
    index();
  }
  void index() {
    for (const LineAddress& row : rows)
      if (row.first_at_address) first_at.emplace(row.address, &row);
  }
  bool maps_back(uint64_t address, std::string_view file, unsigned line) const {
    auto it = first_at.find(address);
    return it != first_at.end() && it->second->line == line && it->second->file == file;
  }
  // Rows of `file` in [low, high) that map back to their line.
  void lines_in(uint64_t low, uint64_t high, std::string_view file, std::set<unsigned>& lines) const {
    for (const LineAddress& row : rows)
      if (row.address >= low && row.address < high && row.first_at_address && row.file == file &&
          row.line > 0)
        lines.insert(row.line);
  }
};

// The call lines of the inlined instances below `parent`, in `file`, where the instance's entry
// maps back to its call line.
void inline_call_lines(Dwarf_Die* parent, Dwarf_Die* cu, const CuLines& table, std::string_view file,
                       std::set<unsigned>& lines, const LineProgram* program) {
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0) return;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_inlined_subroutine) {
      CallSite site = call_site(&child, cu, program);
      Dwarf_Addr entry = 0;
      if (site.line && site.file == file && dwarf_entrypc(&child, &entry) == 0 &&
          table.maps_back(entry, file, site.line))
        lines.insert(site.line);
    }
    if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block)
      inline_call_lines(&child, cu, table, file, lines, program);
  } while (dwarf_siblingof(&child, &child) == 0);
}

// An inlined instance inside the function being listed.
struct InlineSpan {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  int depth = 0;
  CallSite call;
  std::string decl_file;
  unsigned decl_line = 0;
};

void inline_spans(Dwarf_Die* parent, Dwarf_Die* cu, int depth, std::vector<InlineSpan>& spans,
                  const LineProgram* program) {
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0) return;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_inlined_subroutine) {
      InlineSpan span;
      span.depth = depth;
      span.call = call_site(&child, cu, program);
      span.decl_file = decl_file_of(&child, cu, program);
      int line = 0;
      if (dwarf_decl_line(&child, &line) == 0) span.decl_line = static_cast<unsigned>(line);
      Dwarf_Addr base = 0, low = 0, high = 0;
      for (ptrdiff_t it = 0; (it = dwarf_ranges(&child, it, &base, &low, &high)) > 0;)
        span.ranges.emplace_back(low, high);
      spans.push_back(std::move(span));
      inline_spans(&child, cu, depth + 1, spans, program);
    } else if (tag == DW_TAG_lexical_block) {
      inline_spans(&child, cu, depth, spans, program);
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

// The lines of `site`'s code: its rows that map back to their line (a row inside an inlined
// instance only on that instance's call line or declaration line, perf's rule), its declaration
// line, the call lines of what it inlines.
void function_lines(Dwarf* dwarf, const FunctionSite& site, const CuLines& table, std::set<unsigned>& lines,
                    const LineProgram* program = nullptr) {
  Dwarf_Die cu, die;
  if (!dwarf_offdie(dwarf, site.cu, &cu) || !dwarf_offdie(dwarf, site.die, &die)) return;
  std::vector<InlineSpan> spans;
  inline_spans(&die, &cu, 0, spans, program);
  auto innermost = [&](uint64_t address) -> const InlineSpan* {
    const InlineSpan* found = nullptr;
    for (const InlineSpan& span : spans)
      for (const auto& [low, high] : span.ranges)
        if (address >= low && address < high && (!found || span.depth > found->depth)) found = &span;
    return found;
  };
  for (const auto& [low, high] : site.ranges) {
    std::set<unsigned> rows;
    for (const LineAddress& row : table.rows) {
      if (row.address < low || row.address >= high || !row.first_at_address || row.file != site.decl_file ||
          row.line == 0)
        continue;
      if (const InlineSpan* span = innermost(row.address)) {
        bool call_line = span->call.file == site.decl_file && span->call.line == row.line;
        bool decl_line = span->decl_file == site.decl_file && span->decl_line == row.line;
        if (!call_line && !decl_line) continue;
      }
      lines.insert(row.line);
    }
  }
  inline_call_lines(&die, &cu, table, site.decl_file, lines, program);
  if (site.decl_line && table.maps_back(site.entry, site.decl_file, site.decl_line))
    lines.insert(site.decl_line);
}

Result<std::string> source_text(const std::string& path, const std::string& source_dir, std::string* used) {
  std::vector<std::string> tries;
  if (!source_dir.empty()) {
    // Under -s, the path as given and then with its leading directories dropped one by one.
    std::string_view rest = path;
    while (!rest.empty()) {
      while (rest.starts_with('/')) rest.remove_prefix(1);
      if (rest.starts_with("./")) rest.remove_prefix(2);
      tries.push_back(source_dir + "/" + std::string(rest));
      size_t slash = rest.find('/');
      if (slash == std::string_view::npos) break;
      rest.remove_prefix(slash + 1);
    }
  }
  tries.push_back(path);
  for (const std::string& candidate : tries) {
    auto text = read_file(candidate);
    if (!text) continue;
    *used = candidate;
    return std::move(*text);
  }
  return fail_with(ENOENT,
                   fmt::format("cannot find the source file {}; give its directory with -s/--source", path));
}

}  // namespace

Result<LineListing> list_source_lines(ProbeBinary& binary, const LineRange& range,
                                      const std::string& source_dir) {
  Dwarf* dwarf = binary.dwarf();
  if (!dwarf) return fail_with(ENOENT, binary.missing_debug_info_hint());
  LineListing listing;
  std::string file;
  if (!range.function.empty()) {
    SiteQuery query{range.function, range.file, true, {}};
    query.decl_files = false;  // read from the decoded line program below
    if (!is_glob_pattern(range.function) && range.function.find("::") == std::string::npos)
      query.global_symbol_addresses = binary.global_symbol_addresses(range.function);
    auto sites = find_function_sites(dwarf, query);
    // An alias (malloc for __libc_malloc): the function whose code the symbol starts.
    for (uint64_t address : query.global_symbol_addresses) {
      if (!sites.empty()) break;
      if (auto holder = subprogram_at(dwarf, address)) {
        Dwarf_Addr entry = 0;
        Dwarf_Attribute attribute;
        const char* name =
            dwarf_attr_integrate(&*holder, DW_AT_name, &attribute) ? dwarf_formstring(&attribute) : nullptr;
        if (name && dwarf_entrypc(&*holder, &entry) == 0 && entry == address) {
          SiteQuery alias{name, range.file, true, {address}};
          alias.decl_files = false;
          sites = find_function_sites(dwarf, alias);
        }
      }
    }
    if (sites.empty())
      return fail_with(
          ENOENT, fmt::format("no function '{}' with source lines in {}", range.function, binary.path()));
    // The out-of-line body when there is one; an inline-only function shows where it is called.
    const FunctionSite* body = nullptr;
    for (const FunctionSite& site : sites)
      if (!site.inlined) {
        body = &site;
        break;
      }
    file = body ? body->decl_file : sites.front().decl_file;
    listing.offset = body ? body->decl_line : sites.front().decl_line;
    if (body) {
      uint64_t low = UINT64_MAX, high = 0;
      for (const auto& [from, to] : body->ranges) {
        low = std::min<uint64_t>(low, from);
        high = std::max<uint64_t>(high, to);
      }
      // The function's own rows, decoded from .debug_line without libdw's whole-CU table.
      Dwarf_Die cu, die;
      std::optional<LineProgram> program;
      if (dwarf_offdie(dwarf, body->cu, &cu) && dwarf_offdie(dwarf, body->die, &die))
        program = read_line_program(dwarf, &cu, low, high);
      if (program) {
        FunctionSite site = *body;
        site.decl_file = decl_file_of(&die, &cu, &*program);
        file = site.decl_file;
        function_lines(dwarf, site, CuLines(*program), listing.code_lines, &*program);
      } else {
        if (body->decl_file.empty()) {
          const char* name = dwarf_decl_file(&die);
          file = name ? name : "";
        }
        FunctionSite site = *body;
        site.decl_file = file;
        function_lines(dwarf, site, CuLines(dwarf, body->cu, low, high), listing.code_lines);
      }
    } else {
      Dwarf_Die first;
      if (dwarf_offdie(dwarf, sites.front().die, &first))
        if (const char* name = dwarf_decl_file(&first)) file = name;
      for (const FunctionSite& site : sites) {
        Dwarf_Die cu, die;
        if (!dwarf_offdie(dwarf, site.cu, &cu) || !dwarf_offdie(dwarf, site.die, &die)) continue;
        CallSite call = call_site(&die, &cu);
        if (call.line && call.file == file) listing.code_lines.insert(call.line);
      }
    }
    listing.header = fmt::format("{}@{}:{}", range.function, file, range.start);
  } else {
    auto cus = cus_for_file(dwarf, range.file);
    if (cus.empty())
      return fail_with(EOPNOTSUPP, fmt::format("no source file '{}' in the debug information of {}",
                                               range.file, binary.path()));
    for (Dwarf_Off offset : cus) {
      Dwarf_Die cu;
      if (!dwarf_offdie(dwarf, offset, &cu)) continue;
      Dwarf_Files* files = nullptr;
      size_t count = 0;
      if (file.empty() && dwarf_getsrcfiles(&cu, &files, &count) == 0)
        for (size_t i = 0; i < count && file.empty(); ++i)
          if (const char* name = dwarf_filesrc(files, i, nullptr, nullptr);
              name && path_tail_matches(name, range.file))
            file = name;
      if (file.empty()) continue;
      CuLines table(dwarf, offset);
      table.lines_in(0, UINT64_MAX, file, listing.code_lines);
      SiteQuery all{"*", range.file, false, {}};
      for (const FunctionSite& site : find_function_sites(dwarf, all))
        if (site.cu == offset && site.decl_file == file)
          function_lines(dwarf, site, table, listing.code_lines);
    }
    if (file.empty())
      return fail_with(EOPNOTSUPP, fmt::format("no source file '{}' in the debug information of {}",
                                               range.file, binary.path()));
    listing.header = fmt::format("{}:{}", file, range.start);
  }
  listing.first = listing.offset + range.start;
  listing.last = range.has_end ? listing.offset + range.end : 0;
  std::erase_if(listing.code_lines,
                [&](unsigned line) { return line < listing.first || (listing.last && line > listing.last); });
  auto text = source_text(file, source_dir, &listing.source_path);
  if (!text) return tl::unexpected(text.error());
  listing.source = std::move(*text);
  for (size_t at = 0; at < listing.source.size();) {
    listing.line_starts.push_back(at);
    size_t end = listing.source.find('\n', at);
    at = end == std::string::npos ? listing.source.size() : end + 1;
  }
  if (listing.code_lines.empty() || listing.first > listing.line_count()) {
    if (range.function.empty())
      return fail_with(EOPNOTSUPP,
                       fmt::format("{} has no code at line {}{}", range.file, listing.first,
                                   listing.last ? fmt::format("-{}", listing.last) : std::string("")));
    return fail_with(ENOENT,
                     fmt::format("line {} of {} has no code (the function's lines are shown by -L {})",
                                 range.start, range.function, range.function));
  }
  return listing;
}

std::string_view LineListing::line(unsigned number) const {
  if (number == 0 || number > line_starts.size()) return {};
  size_t start = line_starts[number - 1];
  size_t end = number < line_starts.size() ? line_starts[number] - 1 : source.size();
  if (end > start && source[end - 1] == '\n') --end;
  return std::string_view(source).substr(start, end - start);
}

}  // namespace sonde::probe
