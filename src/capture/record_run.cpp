#include "capture/record_run.hpp"

#include <algorithm>
#include <csignal>

#include "capture/signals.hpp"
#include "capture/tasks.hpp"
#include "capture/workload.hpp"
#include "format/perf_regs.hpp"

namespace sonde::capture {

namespace {

constexpr uint64_t kDefaultFrequency = 4000;  // perf record's default sampling frequency

}  // namespace

std::vector<perf_event_attr> record_attrs(const std::vector<events::EventSpec>& events,
                                          const RecordOptions& options) {
  std::vector<perf_event_attr> attrs;
  const size_t tracking = options.tracking_event_last && !events.empty() ? events.size() - 1 : 0;
  for (size_t i = 0; i < events.size(); ++i) {
    perf_event_attr attr = events[i].attr;
    attr.size = sizeof attr;
    if (attr.text_poke) {
      // record --kcore's event: the kernel's text changes on every CPU, from the start (perf's
      // "immediate"); each record with its time, thread and CPU.
      attr.sample_period = 1;
      attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER |
                         (options.sample_cpu ? PERF_SAMPLE_CPU : 0);
      attr.sample_id_all = 1;
      attr.inherit = options.inherit ? 1 : 0;
      if (options.clockid) attr.use_clockid = 1, attr.clockid = *options.clockid;
      attrs.push_back(attr);
      continue;
    }
    if (options.privilege == RecordOptions::Privilege::user) attr.exclude_kernel = 1, attr.exclude_user = 0;
    if (options.privilege == RecordOptions::Privilege::kernel) attr.exclude_user = 1, attr.exclude_kernel = 0;
    attr.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | options.extra_sample_type;
    if (options.timestamps) attr.sample_type |= PERF_SAMPLE_TIME;
    if (options.sample_cpu || events[i].is_tracepoint()) attr.sample_type |= PERF_SAMPLE_CPU;
    if (events[i].is_tracepoint() || options.raw_samples) attr.sample_type |= PERF_SAMPLE_RAW;
    // Several events: each sample says which one it belongs to (perf's IDENTIFIER).
    if (events.size() > 1) attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
    if (options.call_graph != CallGraph::none) {
      attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
      attr.sample_max_stack = options.max_stack;
    }
    if (options.call_graph == CallGraph::dwarf) {
      attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
      attr.sample_regs_user = format::kX86SampleRegs;
      attr.sample_stack_user = options.dwarf_stack_size;
      attr.exclude_callchain_user = 1;  // the user part is unwound later from the stack copy
      // As perf: dwarf implies sample addresses and data mmaps; the unwinder reads .eh_frame_hdr
      // through the read-only (non-executable) mappings of each binary.
      attr.sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
    }
    if (options.intr_regs) {
      attr.sample_type |= PERF_SAMPLE_REGS_INTR;
      attr.sample_regs_intr = options.intr_regs;
    }
    if (options.user_regs) {
      attr.sample_type |= PERF_SAMPLE_REGS_USER;
      attr.sample_regs_user |= options.user_regs;
    }
    if (options.all_cgroups) attr.sample_type |= PERF_SAMPLE_CGROUP;
    if (options.branch_sample_type) {
      attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
      attr.branch_sample_type = options.branch_sample_type;
    }
    if (options.callchains == RecordOptions::Callchains::user) attr.exclude_callchain_kernel = 1;
    if (options.callchains == RecordOptions::Callchains::kernel) attr.exclude_callchain_user = 1;
    attr.read_format = PERF_FORMAT_ID;
    if (options.running_time || options.inherit_stat)
      attr.read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    // -s: each thread's counts at its exit, as PERF_RECORD_READ records (report -T).
    if (options.inherit_stat) attr.inherit_stat = 1;
    if (options.clockid) {
      attr.use_clockid = 1;
      attr.clockid = *options.clockid;
    }
    attr.write_backward = options.overwrite ? 1 : 0;
    if (options.no_buffering) {
      attr.watermark = 0;
      attr.wakeup_events = 1;
    }
    // Period and frequency: the event's own terms first, then -c/-F, then the defaults.
    bool own_period = attr.sample_period != 0 && !attr.freq;
    if (options.period && !own_period) {
      attr.freq = 0;
      attr.sample_period = *options.period;
    } else if (!own_period && !events[i].is_tracepoint()) {
      attr.freq = 1;
      attr.sample_freq = options.frequency.value_or(kDefaultFrequency);
    }
    if (options.no_samples || (options.tracking_event_last && i == tracking)) {
      // Counting only; perf's dummy tracking event samples every (never occurring) event.
      attr.freq = 0;
      attr.sample_period = options.no_samples ? 0 : 1;
    }
    // A group's members start and stop with their leader, as perf opens them.
    const bool member = i < options.group_leaders.size() && options.group_leaders[i] != static_cast<int>(i);
    attr.disabled = member ? 0 : 1;
    attr.inherit = options.inherit ? 1 : 0;
    // Only a workload alone starts at its exec; system-wide and attached events are enabled
    // before the workload starts (enable_on_exec acts on task events only), as perf does. With
    // -D only the tracking event does.
    bool delayed = options.delay && i != tracking;
    attr.enable_on_exec = !options.command.empty() && options.target.kind == SamplingTarget::Kind::workload &&
                                  !delayed && !member
                              ? 1
                              : 0;
    attr.sample_id_all = 1;
    if (i == tracking) {
      // The tracking event carries the side-band: maps, names, forks and exits.
      attr.mmap = attr.mmap2 = attr.comm = attr.comm_exec = attr.task = 1;
      attr.context_switch = options.switch_events ? 1 : 0;
      attr.mmap_data = options.call_graph == CallGraph::dwarf || options.data_mmaps ? 1 : 0;
      attr.namespaces = options.namespaces ? 1 : 0;
      attr.build_id = options.build_id_mmaps ? 1 : 0;
      attr.cgroup = options.all_cgroups ? 1 : 0;
    }
    attrs.push_back(attr);
  }
  return attrs;
}

Result<RecordRunResult> run_record(const std::vector<perf_event_attr>& attrs,
                                   const std::vector<std::string>& filters, const RecordOptions& options,
                                   const OpenedCallback& on_opened, const CaptureSink& sink) {
  BlockedSignals signals(options.switch_on_signal);
  std::optional<Workload> workload;
  SamplingTarget target = options.target;
  if (!options.command.empty()) {
    auto prepared = Workload::prepare(options.command, options.output_on_stdout);
    if (!prepared) return tl::unexpected(prepared.error());
    workload.emplace(std::move(*prepared));
    if (target.kind == SamplingTarget::Kind::workload) target.tids = {workload->pid()};
  }
  auto session = SamplingSession::open(attrs, filters, target, options.mmap_pages, options.group_leaders);
  if (!session) return tl::unexpected(session.error());
  // --switch-output-event: the event samples every occurrence into a one-page buffer of its own
  // that wakes the loop, which then switches; its records go nowhere.
  std::optional<SamplingSession> switch_trigger;
  if (options.switch_event) {
    perf_event_attr attr = *options.switch_event;
    attr.size = sizeof attr;
    attr.sample_period = 1;
    attr.freq = 0;
    attr.sample_type = PERF_SAMPLE_TID;
    attr.watermark = 0;
    attr.wakeup_events = 1;
    attr.disabled = 1;
    attr.inherit = options.inherit ? 1 : 0;
    attr.enable_on_exec = !options.command.empty() && target.kind == SamplingTarget::Kind::workload ? 1 : 0;
    auto opened = SamplingSession::open({attr}, {""}, target, 1);
    if (!opened) return tl::unexpected(opened.error().with_context("--switch-output-event"));
    switch_trigger.emplace(std::move(*opened));
    if (auto watched = session->watch(*switch_trigger); !watched) return tl::unexpected(watched.error());
  }
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

  // With -D the tracking event starts with the workload, the others at the delay's end (or on
  // --control enable).
  const auto delayed = options.delay ? SamplingSession::Events::tracking : SamplingSession::Events::all;
  if (target.kind != SamplingTarget::Kind::workload) {
    if (auto enabled = session->enable(delayed); !enabled) return tl::unexpected(enabled.error());
    if (switch_trigger)
      if (auto enabled = switch_trigger->enable(); !enabled) return tl::unexpected(enabled.error());
  }
  auto note = [&](const char* text) {
    if (options.notes) options.notes->note(text);
  };
  // -D's end and --control's enable/disable: the sampling events, never the tracking one.
  auto set_sampling = [&](bool enable) -> Result<void> {
    if (enable) {
      if (auto enabled = session->enable(SamplingSession::Events::sampling); !enabled) return enabled;
    } else {
      session->disable(SamplingSession::Events::sampling);
    }
    note(enable ? "Events enabled" : "Events disabled");
    return {};
  };
  auto start = std::chrono::steady_clock::now();
  if (workload) {
    if (auto started = workload->start(); !started) return tl::unexpected(started.error());
  }
  bool enable_pending = false;
  auto enable_at = start;
  if (options.delay) {
    note("Events disabled");
    enable_pending = options.delay->count() >= 0;
    if (enable_pending) enable_at = start + *options.delay;
  }
  bool ended_by_us = false;
  while (true) {
    auto wait = std::chrono::milliseconds(options.control ? 20 : 100);
    if (enable_pending)
      wait = std::clamp(
          std::chrono::duration_cast<std::chrono::milliseconds>(enable_at - std::chrono::steady_clock::now()),
          std::chrono::milliseconds(0), wait);
    // A flight recorder has nothing to drain meanwhile, and snapshots on SIGUSR2 at once.
    ReceivedSignal waited;
    if (options.overwrite)
      waited = signals.wait(wait);
    else
      session->wait(wait);
    if (enable_pending && std::chrono::steady_clock::now() >= enable_at) {
      enable_pending = false;
      if (auto enabled = set_sampling(true); !enabled) return tl::unexpected(enabled.error());
    }
    auto stop_requested = options.control ? options.control->serve(set_sampling) : Result<bool>(false);
    if (!stop_requested) return tl::unexpected(stop_requested.error());
    if (*stop_requested || (options.should_stop && options.should_stop())) {
      // Ended on purpose (--control stop, --max-size): not the workload's failure.
      if (workload) workload->stop(false);
      ended_by_us = true;
      break;
    }
    if (!options.overwrite)
      if (auto drained = drain_round(); !drained) return tl::unexpected(drained.error());
    ReceivedSignal signal = waited.number != 0 ? waited : signals.poll();
    bool switch_now = false;
    if (switch_trigger) {
      bool fired = false;
      switch_trigger->drain([&](const void* data, size_t) {
        fired = fired || static_cast<const perf_event_header*>(data)->type == PERF_RECORD_SAMPLE;
      });
      switch_now = fired;
    }
    while (signal.number == SIGCHLD || signal.number == SIGUSR2) {
      switch_now = switch_now || signal.number == SIGUSR2;
      signal = signals.poll();
    }
    if (options.on_switch && (switch_now || (options.should_switch && options.should_switch()))) {
      // A flight recorder's records go to the file being closed.
      if (options.overwrite)
        if (auto drained = drain_round(); !drained) return tl::unexpected(drained.error());
      if (auto switched = options.on_switch(); !switched) return tl::unexpected(switched.error());
    }
    if (is_stop_request(signal.number)) {
      result.stopped_by_signal = signal.number;
      if (workload) workload->stop(signal.from_terminal);  // the terminal may have signalled it already
      break;
    }
    if (workload && workload->reap()) break;
    // An attached target (-p, -t) that has exited ends the capture, as with perf.
    if (target.kind == SamplingTarget::Kind::threads && !any_alive(target.tids)) {
      if (workload) {  // a command that only timed the capture (-p PID -- sleep 5) is not waited for
        ::kill(workload->pid(), SIGTERM);
        workload->wait();
        ended_by_us = true;
      }
      break;
    }
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
