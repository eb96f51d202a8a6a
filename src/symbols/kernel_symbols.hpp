#pragma once
// Kernel and module symbols from a kallsyms file ("ffffffff81000000 T _text",
// "ffffffffc0a01000 t foo\t[ext4]"), cleaned up as perf does before it splits the list by
// module: the kernel's and each module's symbols end at the next symbol, the last one before a
// change between kernel and module at the next page.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "symbols/symbol_table.hpp"

namespace sonde::symbols {

struct KernelSymbols {
  SymbolTable kernel;
  std::map<std::string, SymbolTable, std::less<>> modules;  // by module name ("ext4")
};

// Parses kallsyms text: text, weak, data and bss symbols (perf's symbol_type__filter). Fails
// when every address is zero (kptr_restrict or an unprivileged reader).
Result<KernelSymbols> parse_kallsyms(std::string_view text);

// Reads and parses a kallsyms file.
Result<KernelSymbols> load_kallsyms(const std::string& path);

// The addresses of the kernel symbols named `names` in a kallsyms file, every alias included
// (section markers such as __sched_text_start share their address with a function, which the
// cleaned-up tables keep instead); a name the file lacks is left out.
Result<std::map<std::string, uint64_t, std::less<>>> kallsyms_addresses(
    const std::string& path, const std::vector<std::string>& names);

}  // namespace sonde::symbols
