#pragma once
// The fast way through a perf sched recording: the data section read once in file order (no
// Session, no Machine), each scheduler sample cut down to the few fields perf sched reads,
// side-band kept as copies; the events handed over in perf's order (its ordered events: each
// FINISHED_ROUND lets out what is older than the previous round's newest event, in time order,
// equal times in file order; what is stamped 0 at once) by merging per-CPU queues, which a
// recording's ring buffers fill in time order already.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/sched/sched_replay.hpp"
#include "base/error.hpp"
#include "format/sample.hpp"
#include "perfdata/reader.hpp"

namespace sonde::analysis {

// Where a tracepoint field sits in a sample's raw payload (size 0: the event lacks it).
struct SchedField {
  uint32_t offset = 0;
  uint32_t size = 0;
  bool is_signed = false;
};

// One scheduler event's fields, as sched_replay decodes them from its format.
struct SchedEventLayout {
  bool sched = false;
  SchedKind kind = SchedKind::sched_switch;
  SchedField prev_pid, next_pid, prev_state, prev_comm, next_comm, pid, comm, orig_cpu, dest_cpu, runtime;
};

int64_t read_sched_field(const uint8_t* raw, size_t size, const SchedField& field);

// A COMM, FORK, EXIT or LOST record applied as perf's machine and perf sched apply it (other
// records are left alone). `id` is its sample_id: a synthesized record's is zeros, tid 0.
void apply_sched_side_band(const perfdata::RecordView& record, const perfdata::SampleId& id,
                           SchedThreads& threads, SchedHandler& handler, SchedFileFacts& facts);

struct SchedScanInput {
  std::vector<SchedEventLayout> events;  // by attr index
  bool keep_comms = false;  // copy next_comm/comm and prev_comm (timehist -n, replay): 32 more bytes an event
};

// Whether scan_sched_file can read the file: not a pipe; samples that name their event at one
// place (PERF_SAMPLE_IDENTIFIER, or PERF_SAMPLE_ID in events of one sample_type, or a file of one
// event) and carry no PERF_SAMPLE_READ.
bool can_scan_sched_file(perfdata::PerfDataReader& reader);

// Replays the file's data section through `handler` and `threads` (see SchedReplay).
Result<void> scan_sched_file(perfdata::PerfDataReader& reader, const SchedScanInput& input,
                             SchedThreads& threads, SchedHandler& handler, SchedFileFacts& facts,
                             Diagnostics& diagnostics);

}  // namespace sonde::analysis
