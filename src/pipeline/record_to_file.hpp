#pragma once
// perf record to a perf.data file or a pipe: the events opened, the side-band, the records
// streamed (zstd-compressed with -z), the header features, and the build-ids of what was hit.
// What trace, top, sched record and probe build their recordings on.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "base/unique_fd.hpp"
#include "capture/off_cpu_recording.hpp"
#include "capture/record_run.hpp"
#include "capture/record_sideband.hpp"
#include "events/event_spec.hpp"

namespace sonde::pipeline {

// Which tasks and CPUs to sample, as the command line names them.
struct RecordTargetSpec {
  bool per_thread = false;   // --per-thread: per-thread buffers (cpu -1), not per CPU
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
  std::string control;                             // --control fifo:CTL[,ACK] | fd:CTL[,ACK]
  std::optional<uint64_t> max_size;                // --max-size: stop once the data is this big
  bool timestamp_filename = false;                 // --timestamp-filename: OUTPUT.YYYYmmddHHMMSScc
  // --switch-output: a new file on SIGUSR2, after so many bytes, or after so long; each closed
  // file is OUTPUT.YYYYmmddHHMMSScc, the last one too. --switch-max-files keeps the newest N.
  struct SwitchOutput {
    bool on_signal = false;
    uint64_t bytes = 0;
    std::chrono::seconds period{0};
  };
  std::optional<SwitchOutput> switch_output;
  enum class BuildIds { hit, all, none } build_ids = BuildIds::hit;  // --buildid-all, -B
  int switch_max_files = 0;
  capture::SidebandSynth synth;  // --synth: which existing tasks' records are synthesized
  // --tail-synthesize: the tasks' side-band is synthesized as each file is finished, not at the start.
  bool tail_synthesize = false;
  // --kcore: `output` is a directory holding the file (DIR/data) and the kernel's code.
  bool kcore = false;
};

// perf's default event: cycles, or cpu-clock without a hardware PMU (as in most VMs).
std::string default_event();

// Fills record.target from the spec (-p's processes' threads, -t's threads, -C's or every
// online CPU, -G's cgroup); the cgroup's fd stays open in `cgroup` for the recording.
Result<void> resolve_record_target(const RecordTargetSpec& spec, capture::RecordOptions& record,
                                   UniqueFd& cgroup);

// --switch-output's argument: "signal", a size ("100M") or a time ("30s", "5m", "1h", "1d").
Result<RecordToFileOptions::SwitchOutput> parse_switch_output(const std::string& text);

struct RecordToFileResult {
  capture::RecordRunResult run;
  std::string output;                                     // the file written, "-" for a pipe
  uint64_t data_size = 0;                                 // bytes of records in the file
  uint64_t uncompressed_bytes = 0, compressed_bytes = 0;  // with compression
  uint64_t off_cpu_lost = 0;                              // blocks the off-CPU profiler had no room for
  bool max_size_reached = false;                          // --max-size ended the recording
  std::vector<std::string> dumped;                        // --switch-output: each file closed, in order
};

// --call-graph's value: "fp" with an optional frame limit ("fp,8"), or "dwarf" with an optional stack
// size ("dwarf,16384"), into record.call_graph, record.max_stack and record.dwarf_stack_size; a
// usage error for anything else.
// -F against the kernel's perf_event_max_sample_rate: the rate to use (lowered to the maximum,
// as perf does with a warning), or perf's error under --strict-freq. 0 (no -F) passes as it is.
Result<uint64_t> check_frequency(uint64_t frequency, bool strict);

Result<void> set_call_graph(const std::string& text, capture::RecordOptions& record);

// Records into options.output. A failed recording leaves no partial file behind.
Result<RecordToFileResult> record_to_file(RecordToFileOptions options, Diagnostics& diagnostics);

// perf's closing line: "[ sonde record: Captured and wrote N MB FILE (N samples)... ]".
std::string record_summary_line(const RecordToFileResult& result);

}  // namespace sonde::pipeline
