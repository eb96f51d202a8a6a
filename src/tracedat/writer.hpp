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

// Writes `contents` to `path` (replacing it). CPUs missing from `cpus` get empty data.
Result<void> write_trace_dat(const std::string& path, const TraceDatContents& contents);

}  // namespace sonde::tracedat
