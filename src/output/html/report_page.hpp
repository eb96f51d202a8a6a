#pragma once
// report --html: one self-contained page (no network, no server) of a recording's profile: the
// tables of report_data embedded once (frames and strings as JSON, the per-sample and per-stack
// columns gzip-compressed and base64-encoded), the stylesheet, and the script (report_script)
// that draws the summary, the top-down and bottom-up call trees, the flame graph and icicle,
// and the per-thread timeline whose dragged range filters every view.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/annotate/function_annotation.hpp"
#include "base/error.hpp"
#include "output/html/report_data.hpp"
#include "output/html/report_diff.hpp"

namespace sonde::output {

struct HtmlReportFacts {
  std::string title;                                      // the input's name
  std::string command = "sonde report";                   // what wrote the page, before the title
  std::vector<std::pair<std::string, std::string>> rows;  // the summary's (fact, value) lines
};

// A hot function's source and disassembly, named as the report names it.
struct HtmlAnnotation {
  std::string name, dso;
  analysis::FunctionAnnotation code;
};

// The whole page.
Result<std::string> html_report_page(const HtmlReportTables& tables,
                                     const std::vector<HtmlAnnotation>& annotations,
                                     const HtmlReportFacts& facts, const HtmlReportDiff* diff);

// The page's script, in two parts: its start and the views (report_script.cpp), then the
// self-test and the start-up (report_selftest.cpp).
std::string_view html_report_views_script();
std::string_view html_report_main_script();

}  // namespace sonde::output
