// libFuzzer target for perf script text -> stacks (src/analysis/stacks/script_text.cpp), what
// `sonde collapse` and `sonde flamegraph` read when given `perf script` output: one input is the
// text. It is parsed twice (without and with -F+srcline lines), every sample folded as
// stackcollapse-perf.pl folds it (with each option that changes a frame's name), the folded text
// written, and the stacks added to a flame graph tree. Nothing the text says may crash the parser;
// the folded text must read back as folded lines with the same total.
#include <algorithm>
#include <cstdint>
#include <string>

#include "analysis/flame/flame_tree.hpp"
#include "analysis/stacks/folded.hpp"
#include "analysis/stacks/script_text.hpp"
#include "analysis/stacks/stack_collapse.hpp"
#include "base/diagnostics.hpp"
#include "fuzz_input.hpp"

using namespace sonde;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  (void)analysis::looks_like_script_text(text);
  for (bool srcline : {false, true}) {
    analysis::CollapseOptions options;
    options.include_pid = srcline;
    options.include_tid = srcline;
    options.annotate_kernel = !srcline;
    options.annotate_jit = true;
    options.include_addrs = srcline;
    analysis::StackCollapser collapser(options);
    analysis::FlameTree tree;
    analysis::EventFilter filter;
    Diagnostics diagnostics;
    uint64_t total = 0, largest = 0;
    analysis::ScriptTextOptions parse_options;
    parse_options.srcline = srcline;
    auto stats = analysis::parse_script_text(
        text, parse_options, filter,
        [&](const analysis::StackSample& sample) {
          collapser.add(sample);
          tree.add(collapser.fold(sample), collapser.names(), static_cast<double>(sample.period));
          total += sample.period;
          largest = std::max(largest, sample.period);
        },
        diagnostics);
    tree.finish();
    fuzz::require(stats.samples <= size, "script_text", "more samples than bytes");
    std::string folded = collapser.folded_text();
    // The folded text reads back: one valid line per stack, the same total (counts below 2^53).
    double read_back = 0;  // counts past 2^64 read back as doubles: compared only below 2^53
    size_t invalid = analysis::for_each_folded_line(
        folded, [&](const analysis::FoldedLine& line) { read_back += line.count; });
    fuzz::require(invalid == 0, "script_text", "folded output has a line that does not parse");
    // Compared where no sum can wrap (perf's periods are far below 2^40).
    if (largest < (uint64_t{1} << 40) && total < (uint64_t{1} << 53))
      fuzz::require(read_back == static_cast<double>(total), "script_text", "folded total differs");
  }
  return 0;
}
