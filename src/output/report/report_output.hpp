#pragma once
// The whole of perf report --stdio's output for a Report: the header note, filter lines, lost
// samples, one section per event with samples, and the closing tip.
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/report/report_options.hpp"
#include "analysis/report/report_run.hpp"
#include "output/report/report_printer.hpp"

namespace sonde::output {

void print_report(std::FILE* out, analysis::Report& report, const analysis::ReportRequest& request);

// The columns, call graphs and filters print_report lays the entries out with; the "# dso: x"
// lines of the columns a single-value filter elides go to `elided_lines` (or nowhere).
ReportLayout report_layout(const analysis::Report& report, const analysis::ReportRequest& request,
                           std::vector<std::string>* elided_lines = nullptr);

}  // namespace sonde::output
