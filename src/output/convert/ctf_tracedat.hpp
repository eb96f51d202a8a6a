#pragma once
// data convert --to-ctf DIR from a trace.dat (trace-cmd record, sonde ftrace record): CTF 1.8 in
// perf's layout (ctf_writer), the LTTng and Trace Compass path for ftrace events. One event
// class per event the file's records use, named "system:event" (an instance's prefixed with the
// instance's name), with the event's common and own fields typed as perf types a tracepoint's;
// one stream per CPU; stamps as the file's clock gives them.
#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "tracedat/reader.hpp"

namespace sonde::output {

struct CtfTraceDatSummary {
  uint64_t events = 0;
  uint64_t bytes = 0;
};

// A damaged page fails the conversion, naming the CPU and page, after the rest was written.
Result<CtfTraceDatSummary> write_ctf_trace(const tracedat::TraceDatReader& reader,
                                           const std::string& directory);

}  // namespace sonde::output
