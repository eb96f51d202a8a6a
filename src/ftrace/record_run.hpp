#pragma once
// One `sonde ftrace record`: set the kernel up, read every CPU's buffer into a file while the
// command runs (or until a stop signal), drain, gather what the trace.dat needs, and put the
// machine's tracing state back on every path out, SIGINT and SIGTERM included.
#include <functional>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "capture/signals.hpp"
#include "ftrace/buffer_stats.hpp"
#include "ftrace/page_events.hpp"
#include "ftrace/raw_capture.hpp"
#include "ftrace/trace_metadata.hpp"
#include "ftrace/tracing_session.hpp"

namespace sonde::ftrace {

struct CpuRecord {
  CpuCapture capture;
  PageCounts counts;
  uint64_t overrun = 0, dropped = 0;  // the buffer's losses during the capture
};

struct RecordOutcome {
  std::vector<CpuRecord> cpus;
  TraceMetadata metadata;
  std::string tracer;       // the tracer that ran ("" when none or refused)
  int workload_status = 0;  // the command's exit status as a shell reports it
  bool stopped_by_signal = false;
  bool out_of_space = false;  // the disk filled while tracing: the run stopped there
};

// `data_prefix` names the per-CPU page files ("<prefix>cpuN"); on success the caller removes
// them, on an error they are gone already. `diagnostics` gets the notes (a refused tracer the
// events go on without). The caller blocks the stop signals (`signals`) for as long as it needs
// to finish its file undisturbed.
Result<RecordOutcome> record_ftrace(capture::BlockedSignals& signals, const TracingRequest& request,
                                    const std::vector<std::string>& command, const std::string& data_prefix,
                                    Diagnostics& diagnostics);

// "1234 events in 5 pages (events/pages per CPU: ...); lost 0 events": the summary line, which
// cli prints after its "sonde ftrace record: ".
std::string record_summary(const RecordOutcome& outcome);

}  // namespace sonde::ftrace
