#pragma once
// The symbols side of perf script's lines: the symbol and offset of an address in a DSO, its
// source line and inline frames, each computed once per (DSO, address) and kept, since a
// profile's stacks repeat the same addresses millions of times.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "session/dso.hpp"
#include "session/machine.hpp"
#include "symbols/unwound_frames.hpp"

namespace sonde::output {

struct ResolvedSymbol {
  bool found = false;
  std::string_view name;     // valid while the ScriptSymbols lives
  uint64_t offset = 0;       // perf's sym+0x.. offset
  uint64_t size = 0;         // the symbol's extent
  uint64_t elf_address = 0;  // the address in the file's symbol space (perf's rip_2objdump)
  uint8_t binding = 0;       // STB_LOCAL, STB_GLOBAL, STB_WEAK
};

using ResolvedInline = symbols::UnwoundFrame;

struct ScriptSymbolOptions {
  std::string symfs;
  std::string kallsyms;
  std::string vmlinux;
  bool demangle = true;
  bool inline_frames = false;
  bool full_source_path = false;  // --full-source-path
};

class ScriptSymbols {
 public:
  explicit ScriptSymbols(const ScriptSymbolOptions& options);
  ~ScriptSymbols();
  ScriptSymbols(const ScriptSymbols&) = delete;
  ScriptSymbols& operator=(const ScriptSymbols&) = delete;

  const ResolvedSymbol& resolve(const session::Dso& dso, uint64_t dso_address);
  // perf's srcline of an address: "file.c:12"; "dso[hexaddr]" when there is no file to read
  // (perf's fallback); "" when the file has no line for it.
  std::string_view srcline(const session::Dso& dso, uint64_t dso_address);
  // Inline frames at the address, innermost first, the holding function last; empty when none.
  const std::vector<ResolvedInline>& inline_frames(const session::Dso& dso, uint64_t dso_address);
  // perf's "name+0x.." of a kernel address (a TEXT_POKE's), "" when no kernel map or symbol
  // holds it.
  std::string kernel_symbol_offset(const session::Machine& machine, uint64_t address);
  // perf's end of a map: the kernel image's ends with its last symbol; others where they end.
  uint64_t map_end(const session::Map& map);
  // The file holding the DSO's code (for the DWARF unwinder), "" when none was found.
  std::string elf_path(const session::Dso& dso);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace sonde::output
