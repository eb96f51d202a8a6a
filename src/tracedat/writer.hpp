#pragma once
// Writes a trace.dat in trace-cmd's version 6 layout, which trace-cmd report (3.x) and KernelShark
// open: magic and header, header_page/header_event, ftrace and event formats, kallsyms,
// printk formats, saved cmdlines, CPU count, options (trace clock, uname, per-CPU stats, CPU
// count), then "flyrecord" with each CPU's raw ring-buffer pages at page-aligned offsets.
//
// The caller gathers the texts from tracefs and captures each CPU's pages (whole pages as read
// from per_cpu/cpuN/trace_pipe_raw) into a file of its own; the writer copies those files in.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "format/trace_dat_metadata.hpp"

namespace sonde::tracedat {

// File of whole raw ring-buffer pages as read from per_cpu/cpuN/trace_pipe_raw.
struct CpuData {
  int cpu = 0;
  std::string path;
};

// The metadata and each CPU's pages.
struct TraceDatContents : TraceMetadata {
  std::vector<CpuData> cpus;
};

// This machine's uname as trace-cmd records it (sysname nodename release machine).
std::string uname_text();

// Writes `contents` to `path` (replacing it). CPUs missing from `cpus` get empty data. With
// `consume_cpu_files` each CPU file's blocks are freed as they are copied (the files are
// temporaries), so the trace needs little more room than its pages already take.
Result<void> write_trace_dat(const std::string& path, const TraceDatContents& contents,
                             bool consume_cpu_files = false);
// The room write_trace_dat needs beyond the CPU files when it consumes them: the metadata and
// the CPU table, a page of padding and one chunk in flight.
uint64_t trace_dat_room_needed(const TraceDatContents& contents);

}  // namespace sonde::tracedat
