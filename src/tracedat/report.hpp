#pragma once
// `trace-cmd report` for one trace.dat: the "cpus=N" header, then every record in time order
// as EventFormatter lines (instance buffers prefixed with their name as trace-cmd does), or
// with --stat the recorded per-CPU buffer statistics.
//
// Where trace-cmd 3.1.6 is plainly wrong sonde does what the user asked: --cpu names real CPUs
// in every buffer (trace-cmd numbers the CPUs of instance buffers after the top buffer's), and
// -F applies wherever it stands on the command line (trace-cmd ignores a -F given after -i).
#include <cstdio>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "tracedat/reader.hpp"

namespace sonde::tracedat {

struct ReportOptions {
  bool nanoseconds = false;          // -t
  std::vector<int> cpus;             // --cpu (empty: all)
  std::vector<std::string> filters;  // -F, in libtraceevent's filter syntax
  bool stat = false;                 // --stat
};

// Writes the report to `out` through a large buffer. Problems with pages (corrupt data) are
// returned as an error after everything readable was printed.
Result<void> write_report(const TraceDatReader& reader, const ReportOptions& options, std::FILE* out);

}  // namespace sonde::tracedat
