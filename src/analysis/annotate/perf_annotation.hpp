#pragma once
// perf 6.1's annotation of one symbol: objdump's lines read as perf reads them (the "FILE: file
// format" line skipped, each line trimmed and its tabs expanded, an absolute "/path:NN" line
// setting the running line number and dropped, "addr:" lines inside the symbol instructions,
// every other line source text numbered by the running counter, which every kept line advances),
// and each instruction given the samples and period of the addresses from it to the next one.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sonde::analysis {

struct AddressHits {
  uint64_t samples = 0, period = 0;
};

struct PerfAnnotationLine {
  int64_t offset = -1;  // an instruction's offset from the symbol's start; -1 for source text
  int line_nr = 0;      // perf's running counter (shown before source text)
  std::string text;     // source text; for an instruction, what follows "addr:"
  AddressHits hits;     // an instruction's, from its offset to the next instruction's
};

struct PerfAnnotation {
  std::vector<PerfAnnotationLine> lines;
  uint64_t start = 0;  // the symbol's objdump address (its ELF virtual address)
  uint64_t size = 0;
  AddressHits total;      // the symbol's samples and period
  int address_width = 0;  // hex digits of the last instruction's address (perf's column)
};

// `objdump_lines` for the symbol [start, start + size); `hits` by offset from its start. The last
// instruction holds the hits up to the symbol's end, or up to `decoded_size` when the listing
// stopped short of it.
PerfAnnotation perf_annotation(const std::vector<std::string>& objdump_lines, uint64_t start, uint64_t size,
                               const std::map<uint64_t, AddressHits>& hits,
                               uint64_t decoded_size = UINT64_MAX);

}  // namespace sonde::analysis
