#pragma once
// The blk tracer's records (`-p blk`) have no format file in tracefs: trace-cmd report makes one
// up ("the blk hack") so that they print as `blktrace: <pid>` and their fields can be read and
// filtered. add_blktrace_event does the same for any tep_handle, so sonde's report matches.
struct tep_handle;

namespace sonde::tracedat {

// Parses the made-up ftrace:blktrace format into `tep`, with trace-cmd's guess of its id (one
// after ftrace's power, kmem_free or user_stack event, the first of them the file has). Does
// nothing when none of those is known or the common fields are not where the format assumes.
void add_blktrace_event(tep_handle* tep);

}  // namespace sonde::tracedat
