#pragma once
// Latency pairs from the tracepoint samples of a perf.data file: each start event is matched
// to the end event that completes it by a key read from their payloads (fields of the formats
// the file's TRACING_DATA carries) or from the sample (its thread, its CPU). Without named
// events the pairs the file holds are recognised: block:block_rq_issue -> block_rq_complete by
// (dev, sector); raw_syscalls:sys_enter -> sys_exit, and each syscalls:sys_enter_X ->
// sys_exit_X, by thread.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/heatmap/event_pairs.hpp"
#include "analysis/script/script_filter.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::analysis {

struct EventPairRequest {
  std::string start_event, end_event;  // "system:name" (or a unique "name"); both empty: recognised pairs
  // Key names: payload fields, else "tid", "pid" or "cpu" of the sample. Empty start_key: the
  // thread; empty end_key: the same names as start_key.
  std::vector<std::string> start_key, end_key;
  ScriptFilter threads;  // comms, pids, tids the start events must come from (empty: all)
};

struct EventPairs {
  std::vector<LatencyPair> pairs;  // ordered by start time
  std::string description;         // "block:block_rq_issue -> block:block_rq_complete by dev,sector"
  uint64_t starts = 0, ends = 0;   // samples seen of each side (starts after the thread filter)
  uint64_t unmatched_ends = 0;     // ends without a pending start of their key
  uint64_t pending_starts = 0;     // starts never completed
  uint64_t unreadable = 0;         // samples whose payload is too short for a key field
};

Result<EventPairs> match_event_pairs(const std::string& path, const EventPairRequest& request,
                                     Diagnostics& diagnostics);

}  // namespace sonde::analysis
