#pragma once
// sonde annotate: one replay counting each sample's address in its symbol (analysis/annotate),
// then every symbol with samples, in perf's order, disassembled in process as objdump would
// print it and read as perf reads objdump, printed as perf annotate --stdio prints it.
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/annotate/objdump_listing.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "output/annotate/annotate_stdio.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::pipeline {

struct AnnotateOptions {
  std::string input = "perf.data";
  std::vector<std::string> symbols;  // [SYMBOL] and -s: only these (all when empty)
  std::vector<std::string> dsos;     // -d: only these DSOs (short or long names)
  double percent_limit = 0;          // a symbol below this share of its event is left out
  bool full_paths = false;           // -P
  analysis::ListingStyle style;      // --no-source, --asm-raw, -M
  output::AnnotateLayout layout;
  symbols::SymbolizerOptions symbolizer;
};

// Prints the annotations to `out`; a symbol whose code cannot be read is left out with a warning
// (once per DSO), as perf leaves it out.
Result<void> annotate(std::FILE* out, const AnnotateOptions& options, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
