#pragma once
// sonde blk: blktrace, blkparse and btrace over the kernel's blk tracer. record traces block
// devices with ftrace's blk tracer and writes blktrace's per-CPU files; parse prints blkparse's
// text from those files (blktrace's own included); live prints it as the I/O happens; and a
// trace.dat holding the blk tracer's records prints the same way (ftrace report --blkparse).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::pipeline {

struct BlkRecordOptions {
  std::vector<std::string> devices;  // loop0, /dev/vda...
  std::string output;                // the files' NAME; "" for each device's name, as blktrace
  std::string directory;             // -D: where the files go ("" the current directory)
  std::vector<std::string> command;  // traced while it runs; empty: until Ctrl-C or -w
  double seconds = 0;                // -w: stop after this long (0: no limit)
  unsigned long buffer_kb = 0;       // per-CPU ring buffer; 0 keeps the kernel's
};

struct BlkRecordOutcome {
  std::vector<std::string> files;  // written, in CPU order per NAME
  uint64_t traces = 0;
  uint64_t lost = 0;  // events the ring buffers overwrote or dropped
  int workload_status = 0;
};

Result<BlkRecordOutcome> blk_record(const BlkRecordOptions& options, Diagnostics& diagnostics);

struct BlkParseOptions {
  std::vector<std::string> inputs;  // -i NAME: NAME.blktrace.0, .1... ("sda.blktrace.3" means "sda")
  std::string directory;            // -D
  bool quiet = false;               // -q: the lines without the summary
};

// blkparse's text of the inputs on `out`; its stderr lines to diagnostics' warnings.
Result<void> blkparse_files(const BlkParseOptions& options, std::FILE* out, Diagnostics& diagnostics);

// The blk tracer's records in a trace.dat as blkparse prints them, one summary per device.
Result<void> blkparse_trace_dat(const std::string& path, std::FILE* out, Diagnostics& diagnostics);

// btrace: traces the devices and prints blkparse's lines as they come, the summary at the end
// (the command's end, -w, or Ctrl-C). Returns the command's exit status (0 without one).
Result<int> blk_live(const BlkRecordOptions& options, std::FILE* out, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
