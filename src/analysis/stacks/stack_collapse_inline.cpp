#include "analysis/stacks/stack_collapse_inline.hpp"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "base/strings.hpp"

namespace sonde::analysis {

namespace {

const Dwfl_Callbacks kOfflineCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

std::string demangled(const char* name) {
  if (!name) return "??";
  int status = 0;
  char* plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || !plain) return name;
  std::string text = plain;
  std::free(plain);
  return text;
}

// A function's name as addr2line -C prints it: the demangled linkage name, else DW_AT_name.
std::string function_name(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
  if (!linkage) linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
  if (linkage) return demangled(linkage);
  const char* name = dwarf_diename(die);
  return name ? name : "??";
}

std::string base_name(const char* path) {
  if (!path) return "??";
  return std::string(path_basename(path));
}

bool is_function(Dwarf_Die* die) {
  int tag = dwarf_tag(die);
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

}  // namespace

struct DwarfInlineExpander::Module {
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = nullptr;
  ~Module() {
    if (dwfl) dwfl_end(dwfl);
  }
};

DwarfInlineExpander::DwarfInlineExpander() = default;
DwarfInlineExpander::~DwarfInlineExpander() = default;

DwarfInlineExpander::Module* DwarfInlineExpander::module(std::string_view dso) {
  std::string path(dso);
  if (auto found = modules_.find(path); found != modules_.end()) return found->second.get();
  auto entry = std::make_unique<Module>();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    entry->dwfl = dwfl_begin(&kOfflineCallbacks);
    // Base 0 without p_vaddr added: module addresses are the ELF's own, as perf script prints
    // user addresses of a DSO and addr2line takes them.
    if (entry->dwfl) entry->module = dwfl_report_elf(entry->dwfl, path.c_str(), path.c_str(), fd, 0, false);
    if (entry->dwfl) dwfl_report_end(entry->dwfl, nullptr, nullptr);
    if (!entry->module) ::close(fd);
  }
  Module* result = entry.get();
  modules_.emplace(path, std::move(entry));
  return result;
}

std::string DwarfInlineExpander::expand(std::string_view ip_text, std::string_view raw_symbol,
                                        std::string_view dso, bool with_context) {
  Module* entry = module(dso);
  if (!entry || !entry->module) return "";
  Dwfl_Module* mod = entry->module;
  Dwarf_Addr addr = std::strtoull(std::string(ip_text).c_str(), nullptr, 16);

  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwfl_module_addrdie(mod, addr, &bias);
  std::vector<std::string> levels;  // innermost first: "name" or "name:file:line"
  if (cu) {
    Dwarf_Die* scopes = nullptr;
    int count = dwarf_getscopes(cu, addr - bias, &scopes);
    const char* file = nullptr;
    int line = 0;
    if (Dwfl_Line* source = dwfl_module_getsrc(mod, addr))
      file = dwfl_lineinfo(source, nullptr, &line, nullptr, nullptr, nullptr);
    Dwarf_Files* files = nullptr;
    dwarf_getsrcfiles(cu, &files, nullptr);
    // The innermost function, then outwards through the concrete tree: dwarf_getscopes follows
    // an inlined function's abstract origin, so each caller comes from the inlined DIE's own scopes.
    Dwarf_Die function;
    bool found = false;
    for (int i = 0; i < count && !found; ++i) {
      if (is_function(&scopes[i])) {
        function = scopes[i];
        found = true;
      }
    }
    std::free(scopes);
    for (int depth = 0; found && depth < 64; ++depth) {
      std::string name = function_name(&function);
      levels.push_back(with_context ? fmt::format("{}:{}:{}", name, base_name(file), line) : name);
      if (dwarf_tag(&function) != DW_TAG_inlined_subroutine) break;
      // The caller's line is this inlined call's site.
      Dwarf_Attribute attr;
      Dwarf_Word call_file = 0, call_line = 0;
      dwarf_formudata(dwarf_attr(&function, DW_AT_call_file, &attr), &call_file);
      dwarf_formudata(dwarf_attr(&function, DW_AT_call_line, &attr), &call_line);
      file = files ? dwarf_filesrc(files, call_file, nullptr, nullptr) : nullptr;
      line = static_cast<int>(call_line);
      Dwarf_Die* parents = nullptr;
      int parent_count = dwarf_getscopes_die(&function, &parents);
      found = false;
      for (int i = 1; i < parent_count && !found; ++i) {
        if (is_function(&parents[i])) {
          function = parents[i];
          found = true;
        }
      }
      std::free(parents);
    }
  }
  if (levels.empty()) {
    // No DWARF function here: addr2line names the symbol, or fails ("??"); then the script
    // retries at the symbol's address plus the offset perf printed (for absolute addresses).
    GElf_Sym sym;
    const char* name = dwfl_module_addrsym(mod, addr, &sym, nullptr);
    if (!name) {
      size_t plus = raw_symbol.rfind("+0x");
      if (plus == std::string_view::npos) return "??";
      std::string func(raw_symbol.substr(0, plus));
      uint64_t offset = std::strtoull(std::string(raw_symbol.substr(plus + 3)).c_str(), nullptr, 16);
      int symbols = dwfl_module_getsymtab(mod);
      for (int i = 1; i < symbols; ++i) {
        GElf_Addr value = 0;
        const char* candidate = dwfl_module_getsym_info(mod, i, &sym, &value, nullptr, nullptr, nullptr);
        if (candidate && func == candidate)
          return expand(fmt::format("{:x}", value + offset), "", dso, with_context);
      }
      return "??";
    }
    levels.push_back(with_context ? demangled(name) + ":??:0" : demangled(name));
  }
  std::string chain;
  for (size_t i = levels.size(); i-- > 0;) {
    chain += levels[i];
    if (i) chain += ';';
  }
  return chain;
}

}  // namespace sonde::analysis
