#include "pipeline/ftrace_runs.hpp"

#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "capture/signals.hpp"
#include "ftrace/buffer_stats.hpp"
#include "ftrace/instance.hpp"
#include "ftrace/page_events.hpp"
#include "ftrace/stream_run.hpp"
#include "output/ftrace/buffer_stats_table.hpp"
#include "tracedat/event_formatter.hpp"
#include "tracedat/writer.hpp"

namespace sonde::pipeline {

namespace {

tracedat::TraceDatContents trace_dat_contents(ftrace::RecordOutcome& outcome) {
  tracedat::TraceDatContents contents;
  static_cast<tracedat::TraceMetadata&>(contents) = std::move(outcome.metadata);
  for (const auto& cpu : outcome.cpus) contents.cpus.push_back({cpu.capture.cpu, cpu.capture.path});
  return contents;
}

uint64_t size_of(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// A trace the disk cannot hold whole (it filled while tracing, or was nearly full) keeps what
// fits: first the kernel's symbol table goes (only function names and %pS fields need it), then
// the newest pages of each CPU, in proportion to its size. The summary's counts follow.
Result<void> make_room(tracedat::TraceDatContents& contents, ftrace::RecordOutcome& outcome,
                       const std::string& output, Diagnostics& diagnostics) {
  auto free = free_bytes(path_directory(output));
  if (!free || *free >= tracedat::trace_dat_room_needed(contents)) return {};
  if (!contents.kallsyms.empty()) {
    contents.kallsyms.clear();
    diagnostics.warningf("the disk holding {} is too full for the kernel's symbol table; it is left out",
                         output);
    if (*free >= tracedat::trace_dat_room_needed(contents)) return {};
  }
  uint64_t short_by = tracedat::trace_dat_room_needed(contents) - *free;
  uint64_t page = contents.page_size, total = 0;
  for (const auto& cpu : contents.cpus) total += size_of(cpu.path);
  if (total <= short_by)
    return failf(
        "the disk holding {} has {} bytes free, too few even for the trace's metadata ({} bytes); "
        "free some space and trace again",
        output, *free, tracedat::trace_dat_room_needed(contents) - total);
  uint64_t left_out = 0;
  for (size_t i = 0; i < contents.cpus.size(); ++i) {
    uint64_t size = size_of(contents.cpus[i].path);
    uint64_t cut = std::min(size, (size * short_by / total + page) / page * page);
    if (cut == 0 || ::truncate(contents.cpus[i].path.c_str(), static_cast<off_t>(size - cut)) != 0) continue;
    left_out += cut;
    if (auto counts = ftrace::count_page_events(contents.cpus[i].path, page))
      outcome.cpus[i].counts = *counts;
  }
  diagnostics.warningf(
      "the disk holding {} is full: the newest {} KiB of trace pages are left out to make room", output,
      left_out / 1024);
  return {};
}

}  // namespace

Result<ftrace::RecordOutcome> ftrace_record_to_trace_dat(const FtraceRecordOptions& options,
                                                         Diagnostics& diagnostics) {
  // An output that will be refused is refused before the command runs, not after.
  if (auto refused = refuse_planted_link(options.output); !refused) return tl::unexpected(refused.error());
  // Held until the trace.dat is complete, so a second Ctrl-C cannot leave half a file.
  capture::BlockedSignals signals;
  auto outcome =
      ftrace::record_ftrace(signals, options.request, options.command, options.output + ".", diagnostics);
  if (!outcome) return outcome;
  // The metadata moves into the file; the outcome keeps what the summary needs.
  tracedat::TraceDatContents contents = trace_dat_contents(*outcome);
  auto written = make_room(contents, *outcome, options.output, diagnostics);
  if (written) written = tracedat::write_trace_dat(options.output, contents, true);
  for (auto& cpu : outcome->cpus) {
    if (!cpu.capture.anonymous) ::unlink(cpu.capture.path.c_str());
    cpu.capture.anonymous.reset();  // the file without a name goes with its last descriptor
  }
  if (!written) {
    // Half a trace.dat is no use to anyone; a device named by -o is never removed.
    struct stat st {};
    if (::lstat(options.output.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(options.output.c_str());
    return tl::unexpected(written.error());
  }
  return outcome;
}

Result<int> ftrace_stream_to(const FtraceStreamOptions& options, std::FILE* out, Diagnostics& diagnostics) {
  capture::BlockedSignals signals;
  std::unique_ptr<tracedat::EventFormatter> formatter;
  std::string line;
  auto print_event = [&](ftrace::LocalTep& tep, const ftrace::LiveEvent& event) {
    if (!formatter) {
      tracedat::FormatOptions format_options;
      format_options.nanoseconds = options.nanoseconds;
      formatter = std::make_unique<tracedat::EventFormatter>(tep.handle(), format_options);
    }
    tep_record record{};
    record.ts = event.ts;
    record.cpu = event.cpu;
    record.data = event.data;
    record.size = event.size;
    record.missed_events = event.missed_events;
    tep.learn_task(tep_data_pid(tep.handle(), &record));
    line.clear();
    formatter->format(record, line);
    std::fwrite(line.data(), 1, line.size(), out);
  };
  auto status = ftrace::stream_ftrace(signals, options.request, options.command, diagnostics, print_event);
  std::fflush(out);
  return status;
}

Result<std::string> ftrace_buffer_stats_table(const std::string& instance_name) {
  auto instance = instance_name.empty() ? ftrace::Instance::top() : ftrace::Instance::existing(instance_name);
  if (!instance) return tl::unexpected(instance.error());
  auto cpus = ftrace::buffer_cpus(*instance);
  if (!cpus) return tl::unexpected(cpus.error());
  std::vector<std::pair<int, ftrace::CpuBufferStats>> stats;
  for (int cpu : *cpus) {
    auto read = ftrace::read_cpu_stats(*instance, cpu);
    if (!read) return tl::unexpected(read.error());
    stats.emplace_back(cpu, *read);
  }
  auto size = instance->read("buffer_size_kb");
  return output::format_buffer_stats(instance->is_top() ? "top-level" : "instance " + instance->name(),
                                     size ? std::string(size->substr(0, size->find('\n'))) : "?", stats);
}

}  // namespace sonde::pipeline
