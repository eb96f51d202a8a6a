#pragma once
// perf's tracing data blob (the TRACING_DATA feature): the tracefs format files that let a reader
// (perf script, libtraceevent) decode the raw payload of tracepoint samples.
#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"

namespace sonde::perfdata {

// Builds the blob for the given tracepoints ({system, name} pairs), read from tracefs, in
// perf's layout (version 0.6): header_page, header_event, the ftrace formats, the events'
// formats by system, then empty kallsyms, printk formats and saved cmdlines.
Result<std::string> build_tracing_data(const std::vector<std::pair<std::string, std::string>>& tracepoints);

}  // namespace sonde::perfdata
