#pragma once
// sonde report on a terminal: the report's entries in output/browser's browser. A zoom builds the
// same histogram again with a filter (no second pass over the file); annotate runs sonde
// annotate for the entry's symbol and shows its text.
#include "analysis/report/report_run.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::pipeline {

// Browses the first event with samples (perf's browser asks which one; sonde starts with the first).
Result<void> browse_report(analysis::Report& report, const analysis::ReportRequest& request);

}  // namespace sonde::pipeline
