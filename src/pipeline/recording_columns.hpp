#pragma once
// A recording as columns, for the Python module (`import sonde`): one replay through the same
// session, symbols and tracepoint formats as the CLI, each sample a row of fixed-width values and
// each name (event, symbol, DSO, comm) a code into a table, so the module hands the columns to
// NumPy without copying and names are made once. Stacks are a frame table (one row per distinct
// (DSO, address), symbolized once) and each distinct stack's frame ids, leaf first.
#include <cstdint>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::pipeline {

struct SampleColumns {
  std::vector<uint64_t> time, period, ip;
  std::vector<int32_t> pid, tid, cpu;  // cpu -1 when not sampled
  std::vector<int32_t> event;          // code into event_names
  std::vector<int32_t> frame;          // the sampled ip's frame id (into the frame table)
  std::vector<int32_t> stack;          // stack id, -1 for a sample without callchain
  std::vector<std::string> event_names;
  // The frame table: an address, its symbol and DSO as codes into names (-1: none).
  std::vector<uint64_t> frame_ip;
  std::vector<int32_t> frame_symbol, frame_dso;
  std::vector<int32_t> frame_srcline;  // with srclines: "file.c:12" codes (-1: none known)
  std::vector<std::string> symbol_names, dso_names, srcline_names;
  // Stack i's frame ids, leaf first: stack_frames[stack_offsets[i] .. stack_offsets[i + 1]).
  std::vector<int64_t> stack_offsets{0};
  std::vector<int32_t> stack_frames;
};

// Every sample of the file; `stacks`: their callchains too (frame-pointer and DWARF recordings);
// `srclines`: each frame's source line (from DWARF, once per frame).
Result<SampleColumns> read_sample_columns(const std::string& path, bool stacks, bool srclines,
                                          Diagnostics& diagnostics);

struct TracepointColumns {
  std::vector<uint64_t> time;
  std::vector<int32_t> pid, tid, cpu;
  std::vector<int32_t> comm;  // code into comm_names
  std::vector<std::string> comm_names;
  struct Field {
    enum class Kind { signed_number, unsigned_number, text, bytes };
    std::string name;
    Kind kind = Kind::unsigned_number;
    std::vector<int64_t> signed_values;
    std::vector<uint64_t> unsigned_values;
    std::vector<std::string> texts;  // text and bytes
  };
  std::vector<Field> fields;  // the payload's, in the format's order
};

// The samples of tracepoint `event` ("sched:sched_switch"), every payload field a column; from a
// perf.data or a trace.dat (its top buffer's records, pid and tid the record's common_pid).
Result<TracepointColumns> read_tracepoint_columns(const std::string& path, const std::string& event,
                                                  Diagnostics& diagnostics);

}  // namespace sonde::pipeline
