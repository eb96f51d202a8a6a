#pragma once
// data convert --to-chrome from a trace.dat (trace-cmd record, sonde ftrace record): every
// record an instant event on its task's track, named "system:event" (an instance's prefixed
// with the instance's name) with the CPU and the event's own fields as args; sched_switch also as
// per-CPU slices of who runs (chrome_events); the tasks' tracks named from the file's saved
// comms. Streamed, as the records are merged in time order.
#include <cstdint>

#include "base/error.hpp"
#include "base/output_stream.hpp"
#include "tracedat/reader.hpp"

namespace sonde::output {

struct ChromeTraceDatSummary {
  uint64_t events = 0;
  uint64_t bytes = 0;
};

// A damaged page fails the conversion, naming the CPU and page, after the rest was read.
Result<ChromeTraceDatSummary> write_chrome_trace(const tracedat::TraceDatReader& reader, OutputStream& out);

}  // namespace sonde::output
