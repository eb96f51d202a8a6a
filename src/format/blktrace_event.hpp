#pragma once
// The blk tracer's records (`-p blk`) have no format file in tracefs: trace-cmd report makes one
// up ("the blk hack") so that they print as `blktrace: <pid>` and their fields can be read and
// filtered. add_blktrace_event does the same for any tep_handle, so sonde's report matches.
#include <optional>

#include "format/blktrace_file.hpp"

struct tep_handle;

namespace sonde::tracedat {

// Parses the made-up ftrace:blktrace format into `tep`, with trace-cmd's guess of its id (one
// after ftrace's power, kmem_free or user_stack event, the first of them the file has). Does
// nothing when none of those is known or the common fields are not where the format assumes.
void add_blktrace_event(tep_handle* tep);

// The made-up event's id in `tep` (after add_blktrace_event), -1 when it has none.
int blktrace_event_id(tep_handle* tep);

// One blk tracer record (its payload, common fields first) as the trace blktrace would have
// written: the ring buffer's timestamp and CPU stand in for the fields the ftrace path leaves
// unset. nullopt when the record is too short for its payload.
std::optional<format::BlkTrace> blk_trace_from_record(const void* data, int size, unsigned long long ts,
                                                      int cpu);

}  // namespace sonde::tracedat
