#pragma once
// report --html --diff BASE.data: what the page's differential views need from the baseline,
// measured on the event the page opens on (the baseline's event of the same name, else its
// busiest): each function's self and total weight (perf diff's Baseline column is the self
// share), and the baseline's weight at each node of the new profile's call tree, found by the
// path of function names from the root (nodes only the baseline has are left out, as a
// differential flame graph of the new profile leaves them out).
#include <cstdint>
#include <string>
#include <vector>

#include "output/html/report_data.hpp"

namespace sonde::output {

struct HtmlReportDiff {
  std::string title;  // the baseline's file
  std::string event;
  double sum = 0;  // the baseline's weight of that event
  struct Function {
    std::string name;
    double self = 0, total = 0;
  };
  std::vector<Function> functions;                       // those with weight, heaviest self first
  std::vector<std::pair<uint32_t, double>> node_totals;  // (new stack id, baseline total)
};

HtmlReportDiff diff_tables(const HtmlReportTables& now, const HtmlReportTables& base, std::string title);

}  // namespace sonde::output
