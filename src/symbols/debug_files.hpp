#pragma once
// Where a user binary's symbols and debug information may be, in perf's order: the files named
// by .gnu_debuglink, the build-id cache, the distribution's /usr/lib/debug by path and by
// build-id, then the binary itself. The symbolizer tries them for symbols; probe for DWARF.
#include <string>
#include <vector>

#include "symbols/elf_image.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::symbols {

// `long_name` as recorded (or as given), `build_id` its build-id in hex ("" when unknown).
// Paths carry the options' symfs prefix. `opened`, when the caller has the binary open already,
// saves opening it again for its .gnu_debuglink.
std::vector<std::string> debug_file_candidates(const std::string& long_name, const std::string& build_id,
                                               const SymbolizerOptions& options,
                                               const ElfImage* opened = nullptr);

}  // namespace sonde::symbols
