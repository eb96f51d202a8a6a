#include "output/script/script_symbols.hpp"

#include <fmt/format.h>

#include "base/strings.hpp"
#include "symbols/symbolizer.hpp"
#include "symbols/unwound_frames.hpp"

namespace sonde::output {

struct ScriptSymbols::Impl {
  template <typename Value>
  struct PerDsoCache {
    // One map per DSO id: the address alone is the key, so no collisions between DSOs.
    std::vector<std::unordered_map<uint64_t, Value>> by_dso;
    std::pair<Value*, bool> find_or_add(const session::Dso& dso, uint64_t addr) {
      if (by_dso.size() <= dso.id) by_dso.resize(dso.id + 1);
      auto [it, fresh] = by_dso[dso.id].try_emplace(addr);
      return {&it->second, fresh};
    }
  };

  symbols::Symbolizer symbolizer;
  PerDsoCache<ResolvedSymbol> symbols;
  PerDsoCache<std::string> srclines;
  PerDsoCache<std::vector<ResolvedInline>> inlines;

  explicit Impl(symbols::SymbolizerOptions options) : symbolizer(std::move(options)) {}
};

ScriptSymbols::ScriptSymbols(const ScriptSymbolOptions& options) {
  symbols::SymbolizerOptions symbolizer_options;
  symbolizer_options.symfs = options.symfs;
  if (!options.kallsyms.empty()) symbolizer_options.kallsyms = options.kallsyms;
  symbolizer_options.vmlinux = options.vmlinux;
  symbolizer_options.demangle = options.demangle;
  symbolizer_options.inline_frames = true;
  symbolizer_options.full_source_path = options.full_source_path;
  impl_ = new Impl(std::move(symbolizer_options));
}

ScriptSymbols::~ScriptSymbols() { delete impl_; }

const ResolvedSymbol& ScriptSymbols::resolve(const session::Dso& dso, uint64_t dso_address) {
  auto [resolved, fresh] = impl_->symbols.find_or_add(dso, dso_address);
  if (fresh) {
    resolved->elf_address = impl_->symbolizer.elf_address(dso, dso_address);
    if (const symbols::Symbol* symbol = impl_->symbolizer.find(dso, dso_address)) {
      resolved->found = true;
      resolved->name = symbol->name;
      resolved->offset = resolved->elf_address - symbol->start;
      resolved->size = symbol->size;
      resolved->binding = symbol->binding;
    }
  }
  return *resolved;
}

std::string ScriptSymbols::kernel_symbol_offset(const session::Machine& machine, uint64_t address) {
  const session::Thread any_thread;  // the kernel's maps are every thread's
  session::Location location = machine.locate(any_thread, PERF_RECORD_MISC_KERNEL, address);
  if (location.dso == nullptr) return "";
  const ResolvedSymbol& symbol = resolve(*location.dso, location.dso_address);
  return symbol.found ? fmt::format("{}+{:#x}", symbol.name, symbol.offset) : "";
}

std::string_view ScriptSymbols::srcline(const session::Dso& dso, uint64_t dso_address) {
  auto [line, fresh] = impl_->srclines.find_or_add(dso, dso_address);
  if (fresh) {
    *line = impl_->symbolizer.srcline(dso, dso_address);
    // perf (through addr2line) prints "??:0", so nothing, for files without line information,
    // and "dso[addr]" where it has no file to ask: the kernel image, a missing binary.
    if (line->empty() && (dso.is_kernel() || impl_->symbolizer.elf_path(dso).empty()))
      *line = fmt::format("{}[{:x}]", dso.short_name, resolve(dso, dso_address).elf_address);
  }
  return *line;
}

const std::vector<ResolvedInline>& ScriptSymbols::inline_frames(const session::Dso& dso,
                                                                uint64_t dso_address) {
  auto [frames, fresh] = impl_->inlines.find_or_add(dso, dso_address);
  if (fresh) *frames = symbols::unwound_frames(impl_->symbolizer, dso, dso_address);
  return *frames;
}

uint64_t ScriptSymbols::map_end(const session::Map& map) {
  if (map.dso != nullptr && map.dso->kind == session::DsoKind::kernel) {
    if (uint64_t end = impl_->symbolizer.symbols_end(*map.dso)) return end;
  }
  return map.end;
}

std::string ScriptSymbols::elf_path(const session::Dso& dso) { return impl_->symbolizer.elf_path(dso); }

}  // namespace sonde::output
