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

namespace sonde::tracedat {

// File of whole raw ring-buffer pages as read from per_cpu/cpuN/trace_pipe_raw.
struct CpuData {
  int cpu = 0;
  std::string path;
};

struct TraceDatContents {
  uint32_t page_size = 4096;
  std::string header_page, header_event;    // events/header_page, events/header_event
  std::vector<std::string> ftrace_formats;  // events/ftrace/*/format texts
  // System name, its format texts (events/<system>/*/format).
  std::vector<std::pair<std::string, std::vector<std::string>>> event_formats;
  std::string kallsyms, printk_formats, saved_cmdlines;  // /proc/kallsyms, printk_formats, saved_cmdlines
  std::string trace_clock;             // the clock's name, e.g. "local" (or the whole trace_clock file text)
  std::vector<std::string> cpu_stats;  // per_cpu/cpuN/stats text, index = cpu
  std::string uname;                   // as trace-cmd records it: "sysname nodename release version machine"
  int nr_cpus = 0;
  std::vector<CpuData> cpus;
};

// This machine's uname as trace-cmd records it (sysname nodename release machine).
std::string uname_text();

// Writes `contents` to `path` (replacing it). CPUs missing from `cpus` get empty data.
Result<void> write_trace_dat(const std::string& path, const TraceDatContents& contents);

}  // namespace sonde::tracedat
