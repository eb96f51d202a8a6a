#include "pipeline/ftrace_runs.hpp"

#include <traceevent/event-parse.h>
#include <unistd.h>

#include <memory>

#include "base/file.hpp"
#include "capture/signals.hpp"
#include "ftrace/buffer_stats.hpp"
#include "ftrace/instance.hpp"
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
  auto written = tracedat::write_trace_dat(options.output, trace_dat_contents(*outcome));
  for (auto& cpu : outcome->cpus) {
    if (!cpu.capture.anonymous) ::unlink(cpu.capture.path.c_str());
    cpu.capture.anonymous.reset();  // the file without a name goes with its last descriptor
  }
  if (!written) return tl::unexpected(written.error());
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
