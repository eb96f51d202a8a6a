#include "pipeline/trace_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>

#include "analysis/trace/recorded_syscalls.hpp"
#include "analysis/trace/syscall_catalogue.hpp"
#include "base/file.hpp"
#include "output/trace/summary_tables.hpp"
#include "output/trace/trace_event_text.hpp"

namespace sonde::pipeline {

// Where the trace's text goes: stderr as perf trace prints, or the -o file.
Result<std::unique_ptr<OutputStream>> open_output(const std::string& path) {
  if (path.empty()) return std::make_unique<OutputStream>(STDERR_FILENO, false, "stderr");
  auto opened = open_output_file(path, 0600);
  if (!opened) return tl::unexpected(opened.error());
  return std::make_unique<OutputStream>(opened->release(), true, path);
}

// The summary's tail text: lost events, then the table -s, -S or -c asked for.
std::string summary_text(const TraceRunOptions& options, const analysis::SyscallSummary* summary,
                         uint64_t lost) {
  std::string tail;
  if (lost > 0) tail += fmt::format("LOST {} events!\n", lost);
  if (summary == nullptr) return tail;
  if (options.strace_summary) return tail + output::strace_summary(*summary, options.sort);
  output::PerfSummaryOptions summary_options;
  summary_options.errno_summary = options.errno_summary;
  summary_options.sort = options.sort;
  return tail + output::perf_trace_summary(*summary, summary_options);
}

Result<int> replay_trace(const TraceRunOptions& options, const events::SyscallSelection& selection,
                         Diagnostics& diagnostics) {
  auto output = open_output(options.output_path);
  if (!output) return tl::unexpected(output.error());
  OutputStream& out = **output;
  bool summary = options.summary_only || options.with_summary || options.strace_summary;
  bool events_wanted = !options.summary_only && !options.strace_summary;
  analysis::SyscallCatalogue catalogue;
  output::TraceTextOptions text_options;
  text_options.absolute_time = options.absolute_time;
  text_options.show_comm = options.show_comm.value_or(true);
  text_options.live = false;
  output::TraceEventText text(catalogue, text_options);
  std::string lines;
  uint64_t printed = 0;
  auto wanted_task = [&](const kernel::SyscallTraceEvent& event) {
    if (options.pids.empty() && options.tids.empty()) return true;
    for (pid_t pid : options.pids)
      if (static_cast<uint32_t>(pid) == event.pid) return true;
    for (pid_t tid : options.tids)
      if (static_cast<uint32_t>(tid) == event.tid) return true;
    return false;
  };
  Result<void> written;
  // perf splits a call's line around another thread's entry only when it prints every call.
  bool whole_lines = options.min_duration_ms > 0 || options.failures_only;
  auto on_event = [&](const kernel::SyscallTraceEvent& original) {
    if (!events_wanted || !written || !selection.syscalls[static_cast<size_t>(original.nr)] ||
        !wanted_task(original))
      return;
    kernel::SyscallTraceEvent event = original;
    constexpr int kRtSigreturn = 15;  // printed at its entry whatever the filters
    if (whole_lines && (event.flags & SONDE_TRACE_UNFINISHED) && event.nr != kRtSigreturn) return;
    if (whole_lines) event.flags &= ~SONDE_TRACE_RESUMED;
    if (options.max_events && printed >= *options.max_events) return;
    uint64_t duration = event.enter_ns ? event.exit_ns - event.enter_ns : 0;
    if (static_cast<double>(duration) < options.min_duration_ms * 1e6) return;
    if (options.failures_only && !(event.ret < 0 && event.ret >= -4095)) return;
    text.append(lines, event, offsetof(kernel::SyscallTraceEvent, strings));
    ++printed;
    if (lines.size() >= (1u << 20)) {
      written = out.write(lines.data(), lines.size());
      lines.clear();
    }
  };
  auto replayed = analysis::replay_recorded_syscalls(
      options.input_path, on_event, [&](uint64_t first) { text.start_clock(first); }, diagnostics);
  if (!replayed) return tl::unexpected(replayed.error());
  if (!written) return tl::unexpected(written.error());
  // The file's summary keeps the selected syscalls of the selected tasks only.
  for (auto& thread : replayed->summary.threads)
    std::erase_if(thread.syscalls, [&](const analysis::SyscallRow& row) {
      kernel::SyscallTraceEvent probe{};
      probe.pid = probe.tid = static_cast<uint32_t>(thread.tid);
      return !selection.syscalls[static_cast<size_t>(row.number)] || !wanted_task(probe);
    });
  lines += summary_text(options, summary ? &replayed->summary : nullptr, replayed->lost_events);
  if (auto done = out.write(lines.data(), lines.size()); !done) return tl::unexpected(done.error());
  if (auto closed = out.close(); !closed) return tl::unexpected(closed.error());
  return 0;
}

}  // namespace sonde::pipeline
