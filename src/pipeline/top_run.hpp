#pragma once
// perf top: the sampling events opened on the whole system (or -p/-t tasks, -C CPUs), the tasks'
// maps followed from the side-band as a recording follows them, every drained sample folded into
// analysis/top's live histogram, and every -d seconds a screen: perf top's header line and
// report's entry lines, then perf top's ageing.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/report/sort_keys.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "capture/record_run.hpp"
#include "events/event_spec.hpp"
#include "output/report/report_printer.hpp"
#include "pipeline/record_to_file.hpp"

namespace sonde::pipeline {

// What the keys change while top runs (perf top's z, K and U).
struct TopToggles {
  bool zero = false;         // -z: each screen shows only what came since the last
  bool hide_kernel = false;  // -K
  bool hide_user = false;    // -U
};

struct TopOptions {
  std::vector<events::EventSpec> events;  // empty: perf top's default (cycles:P, else cpu-clock)
  capture::RecordOptions record;          // -F (perf top's 4000 Hz unless -c), -g, --max-stack...
  RecordTargetSpec target;                // the whole system unless -p/-t
  std::vector<analysis::SortKey> keys;    // empty: dso,sym
  std::chrono::milliseconds delay{2000};  // -d
  TopToggles toggles;
  size_t entries = 0;  // -E, else what the terminal's rows leave (perf's print_entries)
  size_t width = 0;    // the terminal's columns; lines are cut to one less, as perf's; 0: uncut
  bool children = false;
  int max_stack = 127;
  output::ReportLayout layout;  // -n, --percent-limit, --show-total-period, the call graph's look
  bool verbose = false;
  // Asked between screens and every tenth of a second: false ends top (q). It may change the toggles.
  std::function<bool(TopToggles&)> poll_input;
  // One screen's text (header, dashes, blank line, entries).
  std::function<void(const std::string& screen)> show;
};

struct TopResult {
  uint64_t samples = 0;
  uint64_t lost = 0;
  int stopped_by_signal = 0;
  bool quit = false;  // ended by the q key
};

Result<TopResult> run_top(TopOptions options, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
