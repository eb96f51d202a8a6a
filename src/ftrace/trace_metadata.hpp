#pragma once
// What a trace.dat needs besides the raw pages, read from tracefs and /proc at the end of a
// capture: the ring buffer's page and event headers, the formats of the events recorded,
// kallsyms, printk formats, task names, the clock and each CPU's buffer statistics.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "ftrace/event_selection.hpp"
#include "ftrace/instance.hpp"

namespace sonde::ftrace {

struct TraceMetadata {
  uint32_t page_size = 4096;
  std::string header_page, header_event;
  std::vector<std::string> ftrace_formats;                                      // events/ftrace/*/format
  std::vector<std::pair<std::string, std::vector<std::string>>> event_formats;  // per subsystem
  std::string kallsyms, printk_formats, saved_cmdlines;
  std::string trace_clock;             // the clock in use ("local")
  std::vector<std::string> cpu_stats;  // per_cpu/cpuN/stats, index = cpu
  std::string uname;                   // as trace-cmd stores it: sysname nodename release machine
  int nr_cpus = 0;
};

// The size of one ring-buffer page (sub-buffer) of the instance.
uint32_t ring_buffer_page_size(const Instance& instance);

Result<TraceMetadata> read_trace_metadata(const Instance& instance, const std::vector<TraceEvent>& events,
                                          const std::vector<int>& cpus);

}  // namespace sonde::ftrace
