#include "analysis/report/report_run.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>

#include "analysis/script/script_filter.hpp"
#include "session/tracepoint_formats.hpp"

namespace sonde::analysis {

namespace {

class HistogramFiller : public session::SessionVisitor {
 public:
  HistogramFiller(Report& report, const ReportRequest& request)
      : report_(report),
        request_(request),
        time_key_(std::find(report.keys.begin(), report.keys.end(), SortKey::time) != report.keys.end()) {
    report.tables.time_in_ns = request.nanoseconds;
    // --socket-filter: each CPU's socket, from the file's CPU_TOPOLOGY.
    if (request.filters.socket)
      if (const auto& topology = report.session.reader().features().cpu_topology)
        for (const auto& cpu : topology->cpus) socket_of_cpu_.push_back(static_cast<int>(cpu.socket_id));
    if (std::find(report.keys.begin(), report.keys.end(), SortKey::trace) == report.keys.end()) return;
    auto formats = session::TracepointFormats::parse(report.session.reader().tracing_data());
    if (formats) formats_.emplace(std::move(*formats));
  }

  void on_sample(const session::SampleEvent& sample) override {
    size_t slot = sample.event_index;
    state_address_ = 0;
    if (!report_.wall_kinds.empty()) {
      // --wall: every time event into the one histogram, off-CPU stacks topped by their state.
      if (slot >= report_.wall_kinds.size() || report_.wall_kinds[slot] == WallClockKind::skipped) return;
      state_address_ = off_cpu_state_address(report_.wall_kinds[slot], sample.sample.weight);
      slot = 0;
    }
    if (slot >= report_.events.size() && report_.wall_kinds.empty()) add_events_declared_since();
    if (slot >= report_.events.size()) return;
    Histogram& histogram = report_.events[slot].histogram;
    uint64_t period = sample.sample.has(PERF_SAMPLE_PERIOD) ? sample.sample.period : 0;
    if (period == 0 && !sample.event.attr.freq) period = sample.event.attr.sample_period;
    if (period == 0) period = 1;
    if (sample.sample.has(PERF_SAMPLE_TIME) && outside_time_ranges(report_.time_ranges, sample.sample.time))
      return;  // perf's --time leaves the sample out of every total
    // So do --switch-on/--switch-off, whose switch a sample moves before -C is asked (perf's order).
    if (report_.event_switch.active() && report_.event_switch.discard(sample.event_index)) return;
    if (!cpu_wanted(sample)) return;  // and -C
    if (!wanted(sample.thread) || !socket_wanted(sample)) {
      histogram.add_filtered(period);
      return;
    }
    ReportTables& tables = report_.tables;
    if (sample.sample.has(PERF_SAMPLE_CALLCHAIN)) histogram.note_callchain();
    int32_t cpu = sample.sample.has(PERF_SAMPLE_CPU) ? static_cast<int32_t>(sample.sample.cpu) : -1;
    // Consecutive samples mostly come from the same thread on the same CPU.
    if (&sample.thread != last_thread_ || cpu != last_cpu_ || sample.thread.comm != last_comm_) {
      CachedComm& cached = comms_[&sample.thread];
      if (cached.id == kNoId || cached.comm != sample.thread.comm) {
        cached.comm = sample.thread.comm;
        cached.id = tables.comm_id(sample.thread.comm);
      }
      last_thread_ = &sample.thread;
      last_cpu_ = cpu;
      last_comm_ = sample.thread.comm;
      last_context_ = tables.context(cached.id, sample.thread.pid, sample.thread.tid, cpu);
    }
    uint32_t context = last_context_;
    if (formats_ && sample.event.attr.type == PERF_TYPE_TRACEPOINT && sample.sample.has(PERF_SAMPLE_RAW)) {
      trace_text_.clear();
      formats_->append_info(cpu, sample.sample.raw, trace_text_, request_.raw_trace);
      const SampleContext& base = tables.contexts[context];
      context = tables.context(base.comm, base.pid, base.tid, base.cpu, tables.trace_id(trace_text_));
    }
    if (time_key_ && sample.sample.has(PERF_SAMPLE_TIME)) {
      // perf's hist_time: the sample's time cut to the quantum.
      uint64_t quantum = request_.time_quantum_ns;
      uint64_t bucket = quantum ? sample.sample.time / quantum * quantum : sample.sample.time;
      const SampleContext& base = tables.contexts[context];
      context = tables.context(base.comm, base.pid, base.tid, base.cpu, base.trace, bucket);
    }

    if (!sample.callchain.empty()) {  // placed by the session (DWARF unwinding)
      locations_.clear();
      for (size_t i = 0; i < sample.callchain.size(); ++i)
        locations_.push_back(tables.locations.intern(sample.callchain[i], i >= sample.unwound_from));
      top_with_state();
      histogram.add(context, locations_, period);
      return;
    }
    // The raw callchain: a stack seen before (same event, context and addresses, no side-band
    // change since) is found as a whole; only new stacks are placed frame by frame.
    if (sideband_changed_) {
      raw_stacks_ = SequenceIndexOf<uint64_t>();
      raw_stack_ids_.clear();
      frames_.clear();
      frame_ids_.clear();
      recent_frames_.fill(RecentFrame{});
      sideband_changed_ = false;
    }
    const perfdata::U64Array& raw = sample.sample.callchain;
    bool has_chain = sample.sample.has(PERF_SAMPLE_CALLCHAIN) && !raw.empty();
    if (raw_cache_off_) {
      place_and_add(histogram, sample, context, period, has_chain);
      return;
    }
    // Keyed by (event, context, mode) and the raw addresses, read where the record holds them.
    uint64_t head =
        (uint64_t(sample.event_index) * 4 + state_address_) << 40 | uint64_t(context) << 8 | sample.cpumode;
    const void* addresses = has_chain ? static_cast<const void*>(raw.bytes.data()) : &sample.sample.ip;
    bool inserted;
    uint32_t raw_id = raw_stacks_.intern_split(head, addresses, has_chain ? raw.size() : 1, inserted);
    if (!inserted) {
      histogram.add_to_stack(raw_stack_ids_[raw_id], period);
      ++raw_hits_;
      return;
    }
    raw_stack_ids_.push_back(place_and_add(histogram, sample, context, period, has_chain));
    // Most stacks new (random call paths): hashing and keeping them costs more than the few hits
    // save (measured on 1M samples of random paths, 12% hits: a quarter less time without).
    if (raw_stack_ids_.size() == kRawCacheProbe && raw_hits_ < kRawCacheProbe / 4) {
      raw_cache_off_ = true;
      raw_stacks_ = SequenceIndexOf<uint64_t>();
      std::vector<uint32_t>().swap(raw_stack_ids_);
    }
  }

  // Places the sample's frames and adds the stack to the histogram; returns the stack's id.
  uint32_t place_and_add(Histogram& histogram, const session::SampleEvent& sample, uint32_t context,
                         uint64_t period, bool has_chain) {
    const perfdata::U64Array& raw = sample.sample.callchain;
    locations_.clear();
    const session::Thread& thread = sample.thread;
    if (has_chain) {
      uint8_t cpumode = PERF_RECORD_MISC_USER;
      for (size_t i = 0; i < raw.size(); ++i) {
        uint64_t ip = raw[i];
        if (ip >= PERF_CONTEXT_MAX) {
          cpumode = session::context_cpumode(ip, cpumode);
          continue;
        }
        locations_.push_back(frame(thread, cpumode, ip));
      }
    }
    if (locations_.empty()) locations_.push_back(frame(thread, sample.cpumode, sample.sample.ip));
    top_with_state();
    // Stacks that rarely repeat are not looked up again after the raw ones stopped being.
    return histogram.add(context, locations_, period, /*look_up=*/!raw_cache_off_);
  }

  Result<void> on_record(const perfdata::RecordView& record, const perfdata::EventAttr* attr,
                         const perfdata::SampleId&) override {
    switch (record.type()) {
      case PERF_RECORD_READ:
        if (request_.show_threads && attr != nullptr) add_thread_count(record, *attr);
        break;
      case PERF_RECORD_MMAP:
      case PERF_RECORD_MMAP2:
      case PERF_RECORD_FORK:
      case PERF_RECORD_COMM:
      case PERF_RECORD_EXIT:
        sideband_changed_ = true;
        break;
      default:
        break;
    }
    return {};
  }

 private:
  // A READ record: u32 pid, u32 tid, then the counter as its read_format lays it out, value first.
  void add_thread_count(const perfdata::RecordView& record, const perfdata::EventAttr& attr) {
    Bytes body = record.bytes;
    if (body.size() < sizeof(perf_event_header) + 16) return;
    auto pid = load<int32_t>(body.data() + sizeof(perf_event_header));
    auto tid = load<int32_t>(body.data() + sizeof(perf_event_header) + 4);
    auto value = load<uint64_t>(body.data() + sizeof(perf_event_header) + 8);
    const auto& events = report_.session.reader().attrs().events();
    auto index = static_cast<uint64_t>(&attr - events.data());
    if (index >= events.size()) return;
    report_.thread_counts.add(pid, tid, index, session::event_name(attr), value);
  }

  struct CachedComm {
    std::string comm;
    uint32_t id = kNoId;
  };
  // A pipe's attrs arrive as records: the events they declare join the report as they come.
  void add_events_declared_since() {
    const auto& events = report_.session.reader().attrs().events();
    for (size_t i = report_.events.size(); i < events.size(); ++i)
      report_.events.push_back({session::event_name(events[i]), Histogram()});
  }

  // --wall: an off-CPU sample's state as the leaf frame.
  void top_with_state() {
    if (state_address_ == 0) return;
    session::Location state;
    state.dso = report_.off_cpu_dso;
    state.ip = state.dso_address = state_address_;
    locations_.insert(locations_.begin(), report_.tables.locations.intern(state));
  }

  bool cpu_wanted(const session::SampleEvent& sample) const {
    const auto& cpus = request_.filters.cpus;
    if (cpus.empty()) return true;
    if (!sample.sample.has(PERF_SAMPLE_CPU)) return false;
    return std::find(cpus.begin(), cpus.end(), static_cast<int>(sample.sample.cpu)) != cpus.end();
  }

  // perf keeps a sample of another socket in the totals, out of the entries.
  bool socket_wanted(const session::SampleEvent& sample) const {
    if (!request_.filters.socket) return true;
    if (!sample.sample.has(PERF_SAMPLE_CPU) || sample.sample.cpu >= socket_of_cpu_.size()) return false;
    return socket_of_cpu_[sample.sample.cpu] == *request_.filters.socket;
  }

  bool wanted(const session::Thread& thread) const {
    const ReportFilters& f = request_.filters;
    if (!f.comms.empty() && std::find(f.comms.begin(), f.comms.end(), thread.comm) == f.comms.end())
      return false;
    if (!f.pids.empty() && std::find(f.pids.begin(), f.pids.end(), thread.pid) == f.pids.end()) return false;
    if (!f.tids.empty() && std::find(f.tids.begin(), f.tids.end(), thread.tid) == f.tids.end()) return false;
    return true;
  }

  // The location id of `ip` in `thread`'s address space (the kernel's for kernel modes),
  // placed by the machine once per distinct address.
  uint32_t frame(const session::Thread& thread, uint8_t cpumode, uint64_t ip) {
    bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
    uint64_t space = kernel ? 0 : reinterpret_cast<uintptr_t>(thread.maps.get());
    bool inserted;
    uint64_t where_key = space ^ (uint64_t(cpumode) << 56);
    // Most addresses were placed a moment ago: a small direct-mapped table answers before the index.
    RecentFrame& recent =
        recent_frames_[((ip ^ where_key) * 0x9e3779b97f4a7c15ull) >> (64 - kRecentFrameBits)];
    if (recent.ip == ip && recent.where == where_key && recent.location != kNoId) return recent.location;
    uint32_t id = frames_.intern({where_key, ip}, inserted);
    if (inserted) {
      session::Location where = report_.session.machine().locate(thread, cpumode, ip);
      if (where.dso) where.dso->hit = true;
      frame_ids_.push_back(report_.tables.locations.intern(where));
    }
    recent = RecentFrame{where_key, ip, frame_ids_[id]};
    return frame_ids_[id];
  }

  Report& report_;
  const ReportRequest& request_;
  std::vector<int> socket_of_cpu_;
  std::optional<session::TracepointFormats> formats_;  // for the trace key
  std::string trace_text_;
  bool time_key_ = false;  // -s time: each sample's context carries its time bucket
  std::unordered_map<const session::Thread*, CachedComm> comms_;
  std::vector<uint32_t> locations_;
  uint64_t state_address_ = 0;  // --wall: the sample's state frame in the [off-CPU] DSO, 0 for none
  bool sideband_changed_ = false;
  const session::Thread* last_thread_ = nullptr;
  int32_t last_cpu_ = -2;
  std::string last_comm_;
  uint32_t last_context_ = 0;
  static constexpr size_t kRawCacheProbe = 65536;  // new stacks seen before judging the cache
  bool raw_cache_off_ = false;
  uint64_t raw_hits_ = 0;
  SequenceIndexOf<uint64_t>
      raw_stacks_;  // (event, context, mode) word, raw callchain -> index into raw_stack_ids_
  std::vector<uint32_t> raw_stack_ids_;  // -> the histogram's stack id
  struct RecentFrame {
    uint64_t where = 0;  // address space and mode, as frames_ keys them
    uint64_t ip = 0;
    uint32_t location = kNoId;
  };
  static constexpr unsigned kRecentFrameBits = 12;
  std::array<RecentFrame, size_t{1} << kRecentFrameBits> recent_frames_{};
  KeyIndex<2> frames_;               // (address space, mode; ip) -> index into frame_ids_
  std::vector<uint32_t> frame_ids_;  // -> location id
};

}  // namespace

// The branch, memory, LBR and AUX views against what the file recorded: perf's error or warning
// where it recorded none of it, and sonde's own line where it did (those views are not built yet).
Result<void> check_data_views(const ReportRequest& request, const std::vector<perfdata::EventAttr>& events,
                              Diagnostics& diagnostics) {
  uint64_t sample_types = 0;
  bool lbr_callstack = false;
  for (const auto& event : events) {
    sample_types |= event.attr.sample_type;
    lbr_callstack |= (event.attr.branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) != 0;
  }
  const auto& views = request.data_views;
  if (!request.filters.cpus.empty() && !(sample_types & PERF_SAMPLE_CPU))
    return fail("the file does not record its samples' CPUs; remove -C/--cpu to proceed");
  bool branches = (sample_types & PERF_SAMPLE_BRANCH_STACK) != 0;
  if (views.branch_stack && !branches)
    return fail("selected -b but the file has no branch data; record with -b (or -j) for branch stacks");
  if ((views.branch_stack || views.branch_history || views.total_cycles) && branches)
    return fail(
        "this file has branch stacks, and sonde report does not show branch views yet (-b, "
        "--branch-history, --total-cycles)");
  if (views.mem_mode && !(sample_types & PERF_SAMPLE_DATA_SRC))
    return fail("selected --mem-mode but the file has no memory data; record with -d for it");
  if (views.mem_mode) return fail("sonde report does not show --mem-mode's memory view yet");
  if (views.stitch_lbr && !lbr_callstack)
    diagnostics.warning(
        "can't find LBR callchains, so --stitch-lbr is off; record with --call-graph lbr for them");
  else if (views.stitch_lbr)
    return fail("sonde report does not stitch LBR callchains yet");
  if (views.itrace && (sample_types & PERF_SAMPLE_AUX))
    return fail("sonde report does not decode AUX area traces (--itrace) yet");
  return {};
}

namespace {

// -F: the columns (perf's default figures unless strict, the fields, then the keys not among
// them) and the order (overhead first unless strict, -s's keys, then every column not yet in it).
void set_field_order(const FieldSpec& spec, const std::vector<SortKey>& sort_keys,
                     const ReportRequest::Layout& shown, Report& report, HistOptions& options) {
  auto figure = [](ReportFigure which) { return ReportField{true, which, SortKey::comm}; };
  auto add = [](std::vector<ReportField>& list, const ReportField& field) {
    if (std::find(list.begin(), list.end(), field) == list.end()) list.push_back(field);
  };
  std::vector<ReportField>& columns = report.columns;
  std::vector<ReportField>& order = options.sort_list;
  if (!spec.strict) {
    if (report.children) add(columns, figure(ReportFigure::overhead_children));
    add(columns, figure(ReportFigure::overhead));
    if (shown.show_cpu_utilization) {
      add(columns, figure(ReportFigure::overhead_sys));
      add(columns, figure(ReportFigure::overhead_us));
    }
    if (shown.show_samples) add(columns, figure(ReportFigure::sample));
    if (shown.show_period) add(columns, figure(ReportFigure::period));
    if (report.children) add(order, figure(ReportFigure::overhead_children));
    add(order, figure(ReportFigure::overhead));
  }
  for (const ReportField& field : spec.fields) add(columns, field);
  for (SortKey key : report.keys) add(columns, {false, ReportFigure::overhead, key});
  for (SortKey key : sort_keys) add(order, {false, ReportFigure::overhead, key});
  for (const ReportField& field : columns) add(order, field);
}

}  // namespace

Result<std::unique_ptr<Report>> run_report(const ReportRequest& request, Diagnostics& diagnostics) {
  if (auto checked = check_parent_pattern(request.options.parent_pattern); !checked)
    return tl::unexpected(checked.error());
  auto session = session::Session::open(request.input, diagnostics);
  if (!session) return tl::unexpected(session.error());
  auto report = std::make_unique<Report>(std::move(*session));
  if (request.wall) {
    auto kinds = wall_clock_kinds(report->session.reader().attrs().events(), request.input);
    if (!kinds) return tl::unexpected(kinds.error());
    report->wall_kinds = std::move(*kinds);
    report->events.push_back({kWallClockEventName, Histogram()});
    report->off_cpu_dso = &off_cpu_dso(report->session);
  } else {
    for (const auto& event : report->session.reader().attrs().events())
      report->events.push_back({session::event_name(event), Histogram()});
  }
  if (request.header_only) return report;
  if (!request.time.empty()) {
    std::optional<std::pair<uint64_t, uint64_t>> sample_times;
    if (const auto& known = report->session.reader().features().sample_time)
      sample_times = std::pair{known->first, known->last};
    auto ranges = parse_time_slices(request.time, sample_times);
    if (!ranges) return tl::unexpected(ranges.error());
    report->time_ranges = std::move(*ranges);
  }
  if (!request.switch_on.empty() || !request.switch_off.empty()) {
    std::vector<std::string> names;
    for (const auto& event : report->session.reader().attrs().events())
      names.push_back(session::event_name(event));
    auto made = EventSwitch::make(request.switch_on, request.switch_off, request.show_on_off_events, names);
    if (!made) return tl::unexpected(made.error());
    report->event_switch = *made;
  }
  if (auto checked = check_data_views(request, report->session.reader().attrs().events(), diagnostics);
      !checked)
    return tl::unexpected(checked.error());
  report->keys = request.options.keys;
  // perf: -F alone (not '+'-prefixed) replaces the default keys with its own.
  const bool strict_fields = request.fields && request.fields->strict;
  if (report->keys.empty() && !strict_fields) {
    bool all_tracepoints = !report->session.reader().attrs().events().empty();
    for (const auto& event : report->session.reader().attrs().events())
      all_tracepoints &= event.attr.type == PERF_TYPE_TRACEPOINT;
    report->keys = all_tracepoints ? std::vector<SortKey>{SortKey::trace}
                                   : std::vector<SortKey>{SortKey::comm, SortKey::dso, SortKey::sym};
  }
  // -F's keys join the entries' keys after -s's (perf appends the output fields to the sort).
  const std::vector<SortKey> sort_keys = report->keys;
  if (request.fields)
    for (const ReportField& field : request.fields->fields)
      if (!field.is_figure &&
          std::find(report->keys.begin(), report->keys.end(), field.key) == report->keys.end())
        report->keys.push_back(field.key);
  if (report->keys.empty())
    return fail_usage("--fields shows no sort key; add one (sym, dso, comm, ...) to it or give -s");
  // perf: an explicit -p pattern adds the parent column.
  if (request.parent_given &&
      std::find(report->keys.begin(), report->keys.end(), SortKey::parent) == report->keys.end())
    report->keys.push_back(SortKey::parent);
  if (std::find(report->keys.begin(), report->keys.end(), SortKey::parent) != report->keys.end()) {
    bool callchains = false;
    for (const auto& event : report->session.reader().attrs().events())
      callchains |= (event.attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
    if (!callchains)
      return fail("selected --sort parent, but the file has no callchains; record with -g for them");
  }

  // --call-graph dwarf recordings: their user stacks are unwound while the session replays.
  bool dwarf = false;
  for (const auto& event : report->session.reader().attrs().events())
    dwarf |= (event.attr.sample_type & PERF_SAMPLE_STACK_USER) != 0;
  if (dwarf) {
    report->unwinder = std::make_unique<unwind::DwarfUnwinder>();
    report->session.set_unwinder(report->unwinder.get());
  }

  // Kernel symbols load while the file is read, when the events could have sampled the kernel.
  // -v: each DSO that could not be resolved, as it is found.
  Diagnostics unresolved(
      [&diagnostics](const Diagnostics::Message& note) { diagnostics.notef("unresolved: {}", note.text); });
  auto resolver = make_frame_resolver(request, request.verbose ? &unresolved : nullptr);
  if (report->off_cpu_dso) resolver = wall_clock_resolver(std::move(resolver), *report->off_cpu_dso);
  for (const auto& event : report->session.reader().attrs().events()) {
    if (!event.attr.exclude_kernel) {
      resolver->prefetch_kernel_symbols();
      break;
    }
  }

  report->session.set_locate_callchains(false);
  if (request.file_order) report->session.set_ordered(false);
  report->session.show_progress("sonde: reading " +
                                (request.input == "-" ? std::string("standard input") : request.input));
  HistogramFiller filler(*report, request);
  if (auto processed = report->session.process(filler); !processed) return tl::unexpected(processed.error());
  report->lost_samples = report->session.stats().lost_samples;

  ReportTables& tables = report->tables;
  for (const SampleContext& context : tables.contexts) {
    const session::Thread* thread = report->session.machine().find_thread(context.tid);
    tables.final_comms.push_back(thread ? thread->comm : tables.comms[context.comm]);
  }
  report->tables.locations.resolve(*resolver);
  bool srclines = std::find(report->keys.begin(), report->keys.end(), SortKey::srcline) != report->keys.end();
  if (srclines) report->tables.locations.resolve_srclines(*resolver);

  bool has_callchain = false;
  for (const EventReport& event : report->events) has_callchain |= event.histogram.has_callchain();
  report->callchains = has_callchain && !request.callchain_none;
  // perf: children by default when there are callchains; -g none keeps them accumulated.
  report->children = request.children.value_or(has_callchain) && has_callchain;

  HistOptions options = request.options;
  options.keys = report->keys;
  const ReportFilters& filters = request.filters;
  if (!filters.dsos.empty() || !filters.symbols.empty())
    options.sample_wanted = [&filters](const FrameLocation& where, const Function& function) {
      const auto& dsos = filters.dsos;
      const auto& symbols = filters.symbols;
      if (!dsos.empty() &&
          (!where.dso || (std::find(dsos.begin(), dsos.end(), where.dso->short_name) == dsos.end() &&
                          std::find(dsos.begin(), dsos.end(), where.dso->long_name) == dsos.end())))
        return false;
      return symbols.empty() ||
             (function.resolved && std::find(symbols.begin(), symbols.end(), function.name) != symbols.end());
    };
  options.children = report->children;
  options.callchains = report->callchains;
  // perf's children mode shows callers first unless an order was given (or -g none).
  if (report->children && !request.order_set && !request.callchain_none)
    options.order = CallchainOrder::caller;
  if (report->children && !request.order_set) options.parent_order = CallchainOrder::caller;
  // perf's --hierarchy does not accumulate, though the chains keep the order children mode gave.
  if (request.hierarchy) report->children = options.children = false;
  if (request.fields) set_field_order(*request.fields, sort_keys, request.layout, *report, options);
  for (EventReport& event : report->events) {
    event.histogram.expand_unwound(report->tables.locations);
    event.histogram.build(report->tables, options);
  }
  if (request.verbose) {
    for (const std::string& line : report->tables.locations.unresolved_descriptions())
      diagnostics.notef("unresolved: {}", line);
  }
  return report;
}

}  // namespace sonde::analysis
