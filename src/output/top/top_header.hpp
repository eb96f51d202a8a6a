#pragma once
// perf top --stdio's screen: its header line ("   PerfTop: ... irqs/sec ..."), a dashed rule and
// a blank line, then report's entry lines for the entries that fit, each cut to the terminal.
#include <cstdint>
#include <string>

#include "analysis/report/hist.hpp"
#include "output/report/report_printer.hpp"

namespace sonde::output {

struct TopHeaderFacts {
  double samples_per_second = 0;      // since the last screen
  double kernel_percent = 0;          // of those samples, taken in the kernel
  double exact_percent = 0;           // of those samples, with an exact ip (PERF_RECORD_MISC_EXACT_IP)
  uint64_t lost = 0, lost_total = 0;  // samples the kernel dropped: since the last screen, in all
  uint64_t rate = 0;                  // the first event's sample_freq or sample_period
  bool hertz = true;                  // followed by "Hz" (unless -c)
  bool one_event = true;              // perf names the rate only for a single event
  std::string event;                  // the event shown, as perf names it ("cpu-clock:pppH")
  std::string target;                 // " (all, 2 CPUs)", " (all, CPUs: 0,1)", " (target_pid: 12)"...
};

// "   PerfTop:    4419 irqs/sec  kernel:78.4%  exact:  0.0% lost: 0/0 drop: 0/0 [4000Hz cpu-clock:pppH],
// (all, 2 CPUs)"
std::string top_header_line(const TopHeaderFacts& facts);

// The whole screen: header, rule, blank line, then at most `entries` entries (0: all) with the
// columns sized to those; `width` the terminal's columns (0: lines not cut).
std::string top_screen(const TopHeaderFacts& facts, analysis::Histogram& histogram,
                       analysis::ReportTables& tables, ReportLayout layout, size_t entries, size_t width);

}  // namespace sonde::output
