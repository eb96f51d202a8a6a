#pragma once
// perf report --header / --header-only: the perf.data header as perf prints it (the file's
// times and sections, each feature's line, the event attrs, the missing features).
#include <cstdio>
#include <string>

#include "perfdata/reader.hpp"

namespace sonde::output {

void print_perf_header(std::FILE* out, perfdata::PerfDataReader& reader, const std::string& path);

}  // namespace sonde::output
