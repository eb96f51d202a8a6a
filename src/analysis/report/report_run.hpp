#pragma once
// One `sonde report` pass over a perf.data file: the session is replayed once, every sample
// folded into its event's histogram, addresses resolved once each, then the histograms built.
#include <memory>
#include <string>
#include <vector>

#include "analysis/report/hist.hpp"
#include "analysis/report/report_frames.hpp"
#include "analysis/report/report_options.hpp"
#include "analysis/report/thread_counts.hpp"
#include "analysis/report/wall_clock.hpp"
#include "analysis/script/event_switch.hpp"
#include "analysis/script/script_filter.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "session/session.hpp"
#include "symbols/symbolizer.hpp"
#include "unwind/dwarf_unwinder.hpp"

namespace sonde::analysis {

struct EventReport {
  std::string name;
  Histogram histogram;
};

struct Report {
  explicit Report(session::Session s) : session(std::move(s)) {}
  std::unique_ptr<session::UserStackUnwinder> unwinder;  // before the session: it outlives its use
  session::Session session;
  ReportTables tables;
  std::vector<SortKey> keys;        // the request's, or the file's default (perf's: trace when
                                    // every event is a tracepoint, else comm,dso,sym)
  std::vector<EventReport> events;  // in the file's event order
  // -F: the columns in order (figures and keys); empty for perf's default layout.
  std::vector<ReportField> columns;
  bool children = false;    // after perf's default (children when there are callchains)
  bool callchains = false;  // call graphs are shown
  uint64_t lost_samples = 0;
  // --wall: what each of the file's events is to the one wall-clock event, and the DSO of its
  // state frames; empty and null otherwise.
  std::vector<WallClockKind> wall_kinds;
  session::Dso* off_cpu_dso = nullptr;
  std::vector<TimeRange> time_ranges;  // --time: samples outside them are left out entirely
  ThreadCounts thread_counts;          // -T
  EventSwitch event_switch;            // --switch-on/--switch-off
};

// Makes the resolver the report uses (the symbols layer); `notes` (or nullptr) takes a note per
// DSO it could not resolve.
std::unique_ptr<FrameResolver> make_frame_resolver(const ReportRequest& request, Diagnostics* notes);
// The symbols layer's options the request's --symfs, --kallsyms, --vmlinux and --no-demangle give.
symbols::SymbolizerOptions symbolizer_options(const ReportRequest& request);

// Request keys left empty take the file's default (Report::keys). With -v, what could not be
// resolved goes to `diagnostics` as "unresolved: ..." notes.
Result<std::unique_ptr<Report>> run_report(const ReportRequest& request, Diagnostics& diagnostics);

}  // namespace sonde::analysis
