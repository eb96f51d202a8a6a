#include "ftrace/record_run.hpp"

#include <csignal>

#include "ftrace/traced_command.hpp"

namespace sonde::ftrace {

namespace {
constexpr std::chrono::milliseconds kDiskCheckInterval{200};
}  // namespace

Result<RecordOutcome> record_ftrace(capture::BlockedSignals& signals, const TracingRequest& request,
                                    const std::vector<std::string>& command, const std::string& data_prefix,
                                    Diagnostics& diagnostics) {
  // Signals are taken synchronously: a Ctrl-C during set-up ends the run through the same
  // tear-down as one during tracing.
  auto traced = TracedCommand::prepare(command);
  if (!traced) return tl::unexpected(traced.error());
  auto session = TracingSession::set_up(request, diagnostics);
  if (!session) return tl::unexpected(session.error());
  auto cpus = buffer_cpus((*session)->instance());
  if (!cpus) return tl::unexpected(cpus.error());
  uint32_t page_size = ring_buffer_page_size((*session)->instance());
  auto capture = RawCapture::start((*session)->instance(), *cpus, data_prefix, page_size);
  if (!capture) return tl::unexpected(capture.error());
  if (auto started = (*session)->start(); !started) return tl::unexpected(started.error());

  RecordOutcome outcome;
  auto stop_signal = traced->start(signals);
  if (!stop_signal) return tl::unexpected(stop_signal.error());
  while (stop_signal->number == 0 && !traced->ended()) {
    auto received = signals.wait(kDiskCheckInterval);
    if (capture::is_stop_request(received.number)) *stop_signal = received;
    // A full disk ends the run as a SIGTERM would: nothing more could be kept.
    if ((*capture)->out_of_space() && stop_signal->number == 0) *stop_signal = {SIGTERM, false};
  }
  (*session)->stop();
  outcome.workload_status = traced->finish(*stop_signal);
  outcome.stopped_by_signal = stop_signal->number != 0;

  auto captures = (*capture)->finish();
  for (auto& cpu_capture : captures) {
    if (cpu_capture.error) return tl::unexpected(*cpu_capture.error);
    outcome.out_of_space = outcome.out_of_space || cpu_capture.out_of_space;
    CpuRecord record;
    auto counts = count_page_events(cpu_capture.path, page_size);
    if (!counts) return tl::unexpected(counts.error());
    record.counts = *counts;
    auto end = read_cpu_stats((*session)->instance(), cpu_capture.cpu);
    for (const auto& [cpu, start] : (*session)->stats_at_start()) {
      if (cpu != cpu_capture.cpu || !end) continue;
      record.overrun = end->overrun + end->commit_overrun - start.overrun - start.commit_overrun;
      record.dropped = end->dropped_events - start.dropped_events;
    }
    record.capture = std::move(cpu_capture);
    outcome.cpus.push_back(std::move(record));
  }
  auto metadata = read_trace_metadata((*session)->instance(), (*session)->events(), *cpus);
  if (!metadata) return tl::unexpected(metadata.error());
  outcome.metadata = std::move(*metadata);
  outcome.tracer = (*session)->tracer();
  auto failures = (*session)->tear_down();
  if (!failures.empty()) return tl::unexpected(failures.front());
  (*capture)->keep_files();
  return outcome;
}

std::string record_summary(const RecordOutcome& outcome) {
  uint64_t events = 0, pages = 0, lost = 0;
  std::string per_cpu;
  for (const auto& cpu : outcome.cpus) {
    events += cpu.counts.events;
    pages += cpu.counts.pages;
    lost += cpu.overrun + cpu.dropped;
    per_cpu += fmt::format("{}cpu{} {}/{}", per_cpu.empty() ? "" : ", ", cpu.capture.cpu, cpu.counts.events,
                           cpu.counts.pages);
    if (cpu.overrun + cpu.dropped > 0) per_cpu += fmt::format(" (lost {})", cpu.overrun + cpu.dropped);
  }
  return fmt::format("{} events in {} pages (events/pages per CPU: {}); lost {} events{}", events, pages,
                     per_cpu, lost,
                     lost == 0              ? ""
                     : outcome.out_of_space ? " (after the disk filled, nothing more was read)"
                                            : " (the buffer overran: raise -b)");
}

}  // namespace sonde::ftrace
