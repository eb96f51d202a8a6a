#pragma once
// perf 6.1's names for a frame of a DWARF unwind: it expands the frame into the functions
// inlined at its address (innermost first) and the function holding them, and names each by
// DWARF. Every one is marked inlined except the holder when DWARF names it as the ELF symbol
// does ("__libc_start_main_impl (inlined)" for "__libc_start_main@@GLIBC_2.34"). perf script,
// report and the folded stacks made from them all show these.
#include <cstdint>
#include <string>
#include <vector>

#include "session/dso.hpp"

namespace sonde::symbols {

class Symbolizer;

struct UnwoundFrame {
  std::string function;
  std::string srcline;  // "file.c:12", "" when unknown
  bool inlined = true;  // false for the function that holds the inlined ones
};

// Empty when no ELF symbol covers the address or there is no DWARF for it (perf then shows the
// frame by its ELF symbol, as any other).
std::vector<UnwoundFrame> unwound_frames(Symbolizer& symbolizer, const session::Dso& dso, uint64_t addr);

}  // namespace sonde::symbols
