#include "capture/record_run.hpp"

#include <csignal>

#include "capture/signals.hpp"
#include "capture/tasks.hpp"
#include "capture/workload.hpp"

namespace sonde::capture {

namespace {

constexpr uint64_t kDefaultFrequency = 4000;  // perf record's default sampling frequency
// perf's PERF_REGS_MASK for x86_64 user registers: everything but the segment registers.
constexpr uint64_t kX86UserRegs = 0xff0fff;

}  // namespace

std::vector<perf_event_attr> record_attrs(const std::vector<events::EventSpec>& events,
                                          const RecordOptions& options) {
  std::vector<perf_event_attr> attrs;
  for (size_t i = 0; i < events.size(); ++i) {
    perf_event_attr attr = events[i].attr;
    attr.size = sizeof attr;
    attr.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
    if (options.timestamps) attr.sample_type |= PERF_SAMPLE_TIME;
    if (options.sample_cpu || events[i].is_tracepoint()) attr.sample_type |= PERF_SAMPLE_CPU;
    if (events[i].is_tracepoint() || options.raw_samples) attr.sample_type |= PERF_SAMPLE_RAW;
    // Several events: each sample says which one it belongs to (perf's IDENTIFIER).
    if (events.size() > 1) attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
    if (options.call_graph != CallGraph::none) attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
    if (options.call_graph == CallGraph::dwarf) {
      attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
      attr.sample_regs_user = kX86UserRegs;
      attr.sample_stack_user = options.dwarf_stack_size;
      attr.exclude_callchain_user = 1;  // the user part is unwound later from the stack copy
      // As perf: dwarf implies sample addresses and data mmaps; the unwinder reads .eh_frame_hdr
      // through the read-only (non-executable) mappings of each binary.
      attr.sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
    }
    attr.read_format = PERF_FORMAT_ID;
    // Period and frequency: the event's own terms first, then -c/-F, then the defaults.
    bool own_period = attr.sample_period != 0 && !attr.freq;
    if (options.period && !own_period) {
      attr.freq = 0;
      attr.sample_period = *options.period;
    } else if (!own_period && !events[i].is_tracepoint()) {
      attr.freq = 1;
      attr.sample_freq = options.frequency.value_or(kDefaultFrequency);
    }
    attr.disabled = 1;
    attr.inherit = options.inherit ? 1 : 0;
    // Only a workload alone starts at its exec; system-wide and attached events are enabled
    // before the workload starts (enable_on_exec acts on task events only), as perf does.
    attr.enable_on_exec =
        !options.command.empty() && options.target.kind == SamplingTarget::Kind::workload ? 1 : 0;
    attr.sample_id_all = 1;
    if (i == 0) {
      // The first event carries the side-band: maps, names, forks and exits.
      attr.mmap = attr.mmap2 = attr.comm = attr.comm_exec = attr.task = 1;
      attr.context_switch = options.switch_events ? 1 : 0;
      attr.mmap_data = options.call_graph == CallGraph::dwarf ? 1 : 0;
    }
    attrs.push_back(attr);
  }
  return attrs;
}

Result<RecordRunResult> run_record(const std::vector<perf_event_attr>& attrs,
                                   const std::vector<std::string>& filters, const RecordOptions& options,
                                   const OpenedCallback& on_opened, const CaptureSink& sink) {
  BlockedSignals signals;
  std::optional<Workload> workload;
  SamplingTarget target = options.target;
  if (!options.command.empty()) {
    auto prepared = Workload::prepare(options.command, options.output_on_stdout);
    if (!prepared) return tl::unexpected(prepared.error());
    workload.emplace(std::move(*prepared));
    if (target.kind != SamplingTarget::Kind::system) {
      target.kind = SamplingTarget::Kind::workload;
      target.tids = {workload->pid()};
    }
  }
  auto session = SamplingSession::open(attrs, filters, target, options.mmap_pages);
  if (!session) return tl::unexpected(session.error());
  if (auto opened = on_opened(*session, workload ? workload->pid() : -1); !opened)
    return tl::unexpected(opened.error());

  RecordRunResult result;
  Result<void> sink_status;
  auto take = [&](const void* data, size_t size) {
    if (!sink_status) return;
    auto* header = static_cast<const perf_event_header*>(data);
    if (header->type == PERF_RECORD_SAMPLE) ++result.samples;
    if (header->type == PERF_RECORD_LOST && size >= sizeof(perf_event_header) + 16)
      result.lost += static_cast<const uint64_t*>(data)[2];  // {header, id, lost}
    result.bytes += size;
    sink_status = sink.records(data, size);
  };
  auto drain_round = [&]() -> Result<void> {
    if (session->drain(take) > 0) {
      if (!sink_status) return sink_status;
      return sink.end_of_round();
    }
    return sink_status;
  };

  if (target.kind != SamplingTarget::Kind::workload) {
    if (auto enabled = session->enable(); !enabled) return tl::unexpected(enabled.error());
  }
  auto start = std::chrono::steady_clock::now();
  if (workload) {
    if (auto started = workload->start(); !started) return tl::unexpected(started.error());
  }
  bool ended_by_us = false;
  while (true) {
    session->wait(std::chrono::milliseconds(100));
    if (auto drained = drain_round(); !drained) return tl::unexpected(drained.error());
    ReceivedSignal signal = signals.poll();
    while (signal.number == SIGCHLD) signal = signals.poll();
    if (is_stop_request(signal.number)) {
      result.stopped_by_signal = signal.number;
      if (workload) workload->stop(signal.from_terminal);  // the terminal may have signalled it already
      break;
    }
    if (workload && workload->reap()) break;
    // An attached target (-p, -t) that has exited ends the capture, as with perf.
    if (target.kind == SamplingTarget::Kind::threads && !any_alive(target.tids)) break;
    if (options.timeout && std::chrono::steady_clock::now() - start >= *options.timeout) {
      if (workload) {
        ::kill(workload->pid(), SIGTERM);
        workload->wait();
        ended_by_us = true;
      }
      break;
    }
  }
  session->disable();
  if (auto drained = drain_round(); !drained) return tl::unexpected(drained.error());
  for (ReceivedSignal late = signals.poll(); late.number != 0; late = signals.poll())
    if (is_stop_request(late.number) && result.stopped_by_signal == 0) result.stopped_by_signal = late.number;
  if (workload) result.exit_status = ended_by_us ? 0 : workload->exit_status();
  return result;
}

}  // namespace sonde::capture
