#pragma once
// perf kmem stat's text: the slab tables (by call site, by pointer) and summary, then the page
// allocator's GFP legend, tables (by call site, by page) and summary with its order ×
// migrate-type table, in perf 6.1's layout (its C locale: no thousands separators).
#include <string>

#include "analysis/kmem/kmem_scan.hpp"

namespace sonde::output {

void append_kmem_report(const analysis::KmemReport& report, std::string& out);

}  // namespace sonde::output
