#include "symbols/kernel_symbols.hpp"

#include <elf.h>

#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::symbols {

Result<KernelSymbols> parse_kallsyms(std::string_view text) {
  std::vector<RawSymbol> raw;
  bool any_address = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    uint64_t address = 0;
    size_t i = 0;
    for (int digit; i < line.size() && (digit = hex_digit_value(line[i])) >= 0; ++i)
      address = address * 16 + static_cast<uint64_t>(digit);
    if (i == 0 || i + 3 > line.size() || line[i] != ' ' || line[i + 2] != ' ') continue;
    char letter = line[i + 1];
    bool local = letter >= 'a' && letter <= 'z';
    char type = local ? static_cast<char>(letter - 'a' + 'A') : letter;
    if (type != 'T' && type != 'W' && type != 'D' && type != 'B') continue;
    std::string_view name = line.substr(i + 3);
    if (name.empty() || name[0] == '$') continue;
    any_address = any_address || address != 0;
    uint8_t binding = local ? STB_LOCAL : type == 'W' ? STB_WEAK : STB_GLOBAL;
    // The name keeps its "\t[module]" tail until the split below, as perf's clean-up needs it.
    raw.push_back(RawSymbol{address, 0, binding, std::string(name)});
  }
  if (!raw.empty() && !any_address)
    return fail(
        "kallsyms shows no addresses (kptr_restrict): run as root or set "
        "/proc/sys/kernel/kptr_restrict to 0");

  SymbolTable all = SymbolTable::build(std::move(raw), /*kallsyms=*/true);
  std::vector<Symbol> kernel;
  std::map<std::string, std::vector<Symbol>, std::less<>> modules;
  std::vector<Symbol>* last_module = nullptr;  // a module's symbols come together
  std::string_view last_module_name;
  for (const Symbol& symbol : all.symbols()) {
    size_t tab = symbol.name.find('\t');
    if (tab == std::string::npos) {
      kernel.push_back(symbol);
      continue;
    }
    std::string_view module = std::string_view(symbol.name).substr(tab + 1);
    if (module.starts_with('[')) module.remove_prefix(1);
    if (size_t close = module.find(']'); close != std::string_view::npos) module = module.substr(0, close);
    if (last_module == nullptr || module != last_module_name) {
      auto it = modules.find(module);
      if (it == modules.end()) it = modules.emplace(std::string(module), std::vector<Symbol>()).first;
      last_module = &it->second;
      last_module_name = it->first;
    }
    last_module->push_back(Symbol{symbol.start, symbol.size, symbol.name.substr(0, tab), symbol.binding});
  }
  KernelSymbols out;
  out.kernel = SymbolTable::from_clean(std::move(kernel));
  for (auto& [name, symbols] : modules)
    out.modules.emplace(name, SymbolTable::from_clean(std::move(symbols)));
  return out;
}

Result<KernelSymbols> load_kallsyms(const std::string& path) {
  auto text = read_file(path);
  if (!text) return tl::unexpected(text.error());
  auto symbols = parse_kallsyms(*text);
  if (!symbols) return tl::unexpected(symbols.error().with_context(path));
  return symbols;
}

Result<std::map<std::string, uint64_t, std::less<>>> kallsyms_addresses(
    const std::string& path, const std::vector<std::string>& names) {
  auto text = read_file(path);
  if (!text) return tl::unexpected(text.error());
  std::map<std::string, uint64_t, std::less<>> found;
  std::string_view rest = *text;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    // "ffffffff821f84a0 T __sched_text_start": address, type, name (module symbols add "\t[mod]").
    size_t space = line.find(' ');
    if (space == std::string_view::npos || line.size() < space + 3) continue;
    std::string_view name = line.substr(space + 3);
    for (const std::string& wanted : names) {
      if (name != wanted) continue;
      if (auto address = parse_uint(line.substr(0, space), 16)) found.emplace(wanted, *address);
    }
  }
  return found;
}

}  // namespace sonde::symbols
