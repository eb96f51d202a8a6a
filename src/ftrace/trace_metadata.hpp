#pragma once
// What a trace.dat needs besides the raw pages (format/'s TraceMetadata), read from tracefs and
// /proc at the end of a capture.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "format/trace_dat_metadata.hpp"
#include "ftrace/event_selection.hpp"
#include "ftrace/instance.hpp"

namespace sonde::ftrace {

using tracedat::TraceMetadata;

// The size of one ring-buffer page (sub-buffer) of the instance.
uint32_t ring_buffer_page_size(const Instance& instance);

Result<TraceMetadata> read_trace_metadata(const Instance& instance, const std::vector<TraceEvent>& events,
                                          const std::vector<int>& cpus);

}  // namespace sonde::ftrace
