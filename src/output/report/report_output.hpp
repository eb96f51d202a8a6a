#pragma once
// The whole of perf report --stdio's output for a Report: the header note, filter lines, lost
// samples, one section per event with samples, and the closing tip.
#include <cstdio>

#include "analysis/report/report_options.hpp"
#include "analysis/report/report_run.hpp"

namespace sonde::output {

void print_report(std::FILE* out, analysis::Report& report, const analysis::ReportRequest& request);

}  // namespace sonde::output
