#include "analysis/report_run.hpp"

#include <algorithm>
#include <unordered_map>

namespace sonde::analysis {

namespace {

class HistogramFiller : public session::SessionVisitor {
 public:
  HistogramFiller(Report& report, const ReportRequest& request) : report_(report), request_(request) {}

  void on_sample(const session::SampleEvent& sample) override {
    if (sample.event_index >= report_.events.size()) return;
    Histogram& histogram = report_.events[sample.event_index].histogram;
    uint64_t period = sample.sample.has(PERF_SAMPLE_PERIOD) ? sample.sample.period : 0;
    if (period == 0 && !sample.event.attr.freq) period = sample.event.attr.sample_period;
    if (period == 0) period = 1;
    if (!wanted(sample.thread)) {
      histogram.add_filtered(period);
      return;
    }
    ReportTables& tables = report_.tables;
    CachedComm& cached = comms_[&sample.thread];
    if (cached.id == kNoId || cached.comm != sample.thread.comm) {
      cached.comm = sample.thread.comm;
      cached.id = tables.comm_id(sample.thread.comm);
    }
    int32_t cpu = sample.sample.has(PERF_SAMPLE_CPU) ? static_cast<int32_t>(sample.sample.cpu) : -1;
    uint32_t context = tables.context(cached.id, sample.thread.pid, sample.thread.tid, cpu);
    locations_.clear();
    for (const session::Location& location : sample.callchain) locations_.push_back(tables.locations.intern(location));
    if (locations_.empty()) {
      session::Location where;
      where.ip = sample.sample.ip;
      where.cpumode = sample.cpumode;
      locations_.push_back(tables.locations.intern(where));
    }
    histogram.add(context, locations_, period);
  }

 private:
  struct CachedComm {
    std::string comm;
    uint32_t id = kNoId;
  };
  bool wanted(const session::Thread& thread) const {
    const ReportFilters& f = request_.filters;
    if (!f.comms.empty() && std::find(f.comms.begin(), f.comms.end(), thread.comm) == f.comms.end()) return false;
    if (!f.pids.empty() && std::find(f.pids.begin(), f.pids.end(), thread.pid) == f.pids.end()) return false;
    if (!f.tids.empty() && std::find(f.tids.begin(), f.tids.end(), thread.tid) == f.tids.end()) return false;
    return true;
  }

  Report& report_;
  const ReportRequest& request_;
  std::unordered_map<const session::Thread*, CachedComm> comms_;
  std::vector<uint32_t> locations_;
};

}  // namespace

Result<std::unique_ptr<Report>> run_report(const ReportRequest& request) {
  auto session = session::Session::open(request.input);
  if (!session) return tl::unexpected(session.error());
  auto report = std::unique_ptr<Report>(new Report{std::move(*session), {}, {}, false, false, 0, {}});
  for (const auto& event : report->session.reader().attrs().events())
    report->events.push_back({session::event_name(event), Histogram()});
  if (request.header_only) return report;

  HistogramFiller filler(*report, request);
  if (auto processed = report->session.process(filler); !processed) return tl::unexpected(processed.error());
  report->lost_samples = report->session.stats().lost_samples;

  auto resolver = make_frame_resolver(request);
  report->tables.locations.resolve(*resolver);
  bool srclines = std::find(request.options.keys.begin(), request.options.keys.end(), SortKey::srcline) !=
                  request.options.keys.end();
  if (srclines) report->tables.locations.resolve_srclines(*resolver);

  bool has_callchain = false;
  for (const EventReport& event : report->events) has_callchain |= event.histogram.has_callchain();
  report->callchains = has_callchain && !request.callchain_none;
  // perf: children by default when there are callchains; -g none keeps them accumulated.
  report->children = request.children.value_or(has_callchain) && has_callchain;

  HistOptions options = request.options;
  options.children = report->children;
  options.callchains = report->callchains;
  // perf's children mode shows callers first unless an order was given.
  if (report->children && !request.order_set) options.order = CallchainOrder::caller;
  for (EventReport& event : report->events) event.histogram.build(report->tables, options);
  if (request.verbose) report->notes = report->tables.locations.unresolved_descriptions();
  return report;
}

}  // namespace sonde::analysis
