#pragma once
// JIT symbol maps, /tmp/perf-PID.map: one "START SIZE name" line per function, START and SIZE
// in hex (with or without 0x), as V8, the JVM agents, LuaJIT and others write them. perf keeps
// the entries as they are: no demangling, no size fix-ups.
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "symbols/symbol_table.hpp"

namespace sonde::symbols {

// The entries of a perf map's text; lines that do not parse are skipped, as perf skips them.
std::vector<RawSymbol> parse_perf_map(std::string_view text);

Result<SymbolTable> load_perf_map(const std::string& path);

}  // namespace sonde::symbols
