#pragma once
// sonde report --html OUT.html: the recording replayed once into the HTML report's tables
// (output/html/report_data) and the page written whole (output/html/report_page), replacing
// OUT.html only once complete.
#include <cstdint>
#include <string>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "output/script/script_symbols.hpp"

namespace sonde::pipeline {

struct HtmlReportOptions {
  std::string input = "perf.data";
  std::string output;
  std::string diff_base;  // --diff BASE.data: the differential views against it
  output::ScriptSymbolOptions symbols;
};

struct HtmlReportSummary {
  uint64_t samples = 0;
  uint64_t bytes = 0;
};

Result<HtmlReportSummary> write_html_report(const HtmlReportOptions& options, Diagnostics& diagnostics);
// ftrace report --html: a trace.dat's records in the same page (output/html/tracedat_tables).
Result<HtmlReportSummary> write_trace_dat_html_report(const std::string& input, const std::string& output);

}  // namespace sonde::pipeline
