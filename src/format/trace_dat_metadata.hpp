#pragma once
// What a trace.dat holds besides the raw pages: the ring buffer's page and event headers, the
// formats of the events recorded, kallsyms, printk formats, task names, the clock and each CPU's
// buffer statistics. ftrace reads it from tracefs at the end of a capture; tracedat writes and
// reads it.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sonde::tracedat {

struct TraceMetadata {
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
};

}  // namespace sonde::tracedat
