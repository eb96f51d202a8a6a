#pragma once
// The text of a hist entry's sort-key column as perf prints it, unpadded: "[.] hot_leaf",
// "libc.so.6", "demo", "  1234:demo". Shared by report and diff.
#include <string>

#include "analysis/report/hist.hpp"
#include "analysis/report/sort_keys.hpp"

namespace sonde::analysis {

std::string hist_key_text(const ReportTables& tables, const HistEntry& entry, SortKey key);

}  // namespace sonde::analysis
