#include "output/script_symbols.hpp"

#include <fmt/format.h>

namespace sonde::output {

namespace {
uint64_t key_of(const session::Dso& dso, uint64_t addr) { return addr ^ (static_cast<uint64_t>(dso.id) << 48); }
}  // namespace

struct ScriptSymbols::Impl {
  ScriptSymbolOptions options;
  std::unordered_map<uint64_t, ResolvedSymbol> symbols;
  std::unordered_map<uint64_t, std::string> srclines;
  std::unordered_map<uint64_t, std::vector<ResolvedInline>> inlines;
};

ScriptSymbols::ScriptSymbols(const ScriptSymbolOptions& options) : impl_(new Impl{options, {}, {}, {}}) {}
ScriptSymbols::~ScriptSymbols() { delete impl_; }

const ResolvedSymbol& ScriptSymbols::resolve(const session::Dso& dso, uint64_t dso_address) {
  auto [it, fresh] = impl_->symbols.try_emplace(key_of(dso, dso_address));
  if (fresh) it->second.elf_address = dso_address;
  return it->second;
}

std::string_view ScriptSymbols::srcline(const session::Dso& dso, uint64_t dso_address) {
  auto [it, fresh] = impl_->srclines.try_emplace(key_of(dso, dso_address));
  if (fresh) it->second = fmt::format("{}[{:x}]", dso.short_name, resolve(dso, dso_address).elf_address);
  return it->second;
}

const std::vector<ResolvedInline>& ScriptSymbols::inline_frames(const session::Dso& dso, uint64_t dso_address) {
  return impl_->inlines[key_of(dso, dso_address)];
}

}  // namespace sonde::output
