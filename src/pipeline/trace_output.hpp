#pragma once
// What sonde trace's live run (trace_run) and its replay of a recording (trace_replay) share:
// where the text goes, the summary's text, and the replay itself.
#include <memory>
#include <string>

#include "analysis/trace/syscall_stats.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "base/output_stream.hpp"
#include "events/syscall_selection.hpp"
#include "pipeline/trace_run.hpp"

namespace sonde::pipeline {

// stderr as perf trace prints, or the -o file.
Result<std::unique_ptr<OutputStream>> open_output(const std::string& path);
// The tail of a trace: "LOST n events!", then the table -s, -S or -c asked for (none when
// `summary` is null).
std::string summary_text(const TraceRunOptions& options, const analysis::SyscallSummary* summary,
                         uint64_t lost);
// -i: a recording's calls replayed as perf trace -i prints them, with the filters applied here.
Result<int> replay_trace(const TraceRunOptions& options, const events::SyscallSelection& selection,
                         Diagnostics& diagnostics);

}  // namespace sonde::pipeline
