#pragma once
// Parsing `perf script` text (its default layout, or -F with comm,pid,tid,...,ip,sym,dso) into
// stack samples, line by line as stackcollapse-perf.pl reads it: a header line per sample
// ("comm [pid/]tid [cpu] time: [period] event:"), one line per frame ("ip sym+off (dso)"), a blank
// line ending the sample. Lines are views into the caller's text; nothing is allocated per line.
#include <functional>
#include <string_view>

#include "analysis/stacks/stack_collapse.hpp"
#include "analysis/stacks/stack_sample.hpp"
#include "base/diagnostics.hpp"

namespace sonde::analysis {

struct ScriptTextOptions {
  bool srcline = false;  // perf script -F+srcline: a source line follows every resolved frame
};

using StackSampleSink = std::function<void(const StackSample&)>;

struct ScriptTextStats {
  size_t samples = 0;
  size_t unrecognized_lines = 0;
};

// Calls `sink` for every sample `filter` accepts; `diagnostics` receives the filter's note and one
// note per unrecognized input line.
ScriptTextStats parse_script_text(std::string_view text, const ScriptTextOptions& options,
                                  EventFilter& filter, const StackSampleSink& sink, Diagnostics& diagnostics);

// True when `text` starts like perf script output (a sample header line followed by a frame
// line or another header) rather than folded stacks.
bool looks_like_script_text(std::string_view text);

}  // namespace sonde::analysis
