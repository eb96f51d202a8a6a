#pragma once
// perf record to a perf.data file or a pipe: the events opened, the side-band, the records
// streamed (zstd-compressed with -z), the header features, and the build-ids of what was hit.
// What trace, top, sched record and probe build their recordings on.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "capture/off_cpu_recording.hpp"
#include "capture/record_run.hpp"
#include "events/event_spec.hpp"

namespace sonde::pipeline {

// Which tasks and CPUs to sample, as the command line names them.
struct RecordTargetSpec {
  bool system_wide = false;  // -a, or -C
  std::string cpu_list;      // -C; empty: every online CPU
  std::string pids, tids;    // -p/-t: existing tasks (without a command and without -a)
  std::string cgroup;        // -G, with system_wide
};

struct RecordToFileOptions {
  std::vector<events::EventSpec> events;  // empty: perf's default event (cycles, or cpu-clock)
  capture::RecordOptions record;          // target.kind/tids/cpus/cgroup_fd come from `target`
  RecordTargetSpec target;
  std::string output = "perf.data";                // "-": a pipe on stdout; an existing file becomes FILE.old
  int compression_level = 0;                       // zstd level, 0 for none
  std::vector<std::string> cmdline;                // the CMDLINE feature
  bool verbose = false;                            // each attr opened, as a note
  std::optional<capture::OffCpuSettings> off_cpu;  // --off-cpu: the offcpu-time event too
};

struct RecordToFileResult {
  capture::RecordRunResult run;
  std::string output;                                     // the file written, "-" for a pipe
  uint64_t data_size = 0;                                 // bytes of records in the file
  uint64_t uncompressed_bytes = 0, compressed_bytes = 0;  // with compression
  uint64_t off_cpu_lost = 0;                              // blocks the off-CPU profiler had no room for
};

// --call-graph's value: "fp", or "dwarf" with an optional stack size ("dwarf,16384"), into
// record.call_graph and record.dwarf_stack_size; a usage error for anything else.
Result<void> set_call_graph(const std::string& text, capture::RecordOptions& record);

// Records into options.output. A failed recording leaves no partial file behind.
Result<RecordToFileResult> record_to_file(RecordToFileOptions options, Diagnostics& diagnostics);

// perf's closing line: "[ sonde record: Captured and wrote N MB FILE (N samples)... ]".
std::string record_summary_line(const RecordToFileResult& result);

}  // namespace sonde::pipeline
