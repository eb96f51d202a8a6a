#pragma once
// ftrace report --html: a trace.dat's records as the HTML report's tables (report_data), so the
// same page shows them: each record a sample of one pseudo-event, "records", weighing 1, its
// "stack" the record's event (system:event, an instance's prefixed with its name) so that the
// call tree, flame graph and search count records by event; its task's lane on the timeline; and
// sched_switch records draw the CPU lanes.
#include <string>
#include <vector>

#include "base/error.hpp"
#include "output/html/report_data.hpp"
#include "tracedat/reader.hpp"

namespace sonde::output {

// A damaged page fails, naming the CPU and page, after the rest was read.
Result<HtmlReportTables> trace_dat_tables(const tracedat::TraceDatReader& reader);

}  // namespace sonde::output
