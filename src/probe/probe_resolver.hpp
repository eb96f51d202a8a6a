#pragma once
// A parsed probe definition resolved against a binary: the addresses it lands on (a function's
// entry and each inline instance, a line's statement rows, a lazy pattern's lines, an offset or
// an address), each with its fetch-args. With DWARF, functions and lines come from it; without,
// from the symbol table, where only entry, +offset and %return probes with register, $argN or
// @symbol arguments can be placed.
#include <elfutils/libdw.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "probe/probe_binary.hpp"
#include "probe/probe_spec.hpp"
#include "probe/variable_fetch.hpp"

namespace sonde::probe {

struct ResolvedProbe {
  std::string function;  // the function holding the address (DWARF or symbol name)
  uint64_t vaddr = 0;    // ELF virtual address
  uint64_t offset = 0;   // from the function's entry
  uint64_t file_offset = 0;
  bool retprobe = false;
  bool inlined = false;
  Dwarf_Off scope =
      0;  // the DIE whose variables the probe sees (function or inlined instance), 0 without DWARF
  std::vector<FetchArg> args;
};

struct ResolveOptions {
  bool inlines = true;        // probe inline instances too (perf does)
  unsigned max_probes = 128;  // --max-probes
  bool kernel = false;        // the binary is a vmlinux (-k): fetch-args for kprobes
};

Result<std::vector<ResolvedProbe>> resolve_user_probe(ProbeBinary& binary, const ProbeSpec& spec,
                                                      const ResolveOptions& options);

// Whether `text` matches the lazy pattern `pattern` (perf's: a glob over the line with the
// spaces of both ignored).
bool lazy_match(std::string_view pattern, std::string_view text);

}  // namespace sonde::probe
