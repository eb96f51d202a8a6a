#pragma once
// What a `sonde report` run is asked for, in perf report's terms, and the parsers of its
// compound options (-g's "graph,0.5,caller,...", the filter lists).
#include <optional>
#include <string>
#include <vector>

#include "analysis/report/callchain.hpp"
#include "analysis/report/hist.hpp"
#include "base/error.hpp"

namespace sonde::analysis {

struct ReportFilters {
  std::vector<std::string> comms, dsos, symbols;
  std::vector<int32_t> pids, tids;
  std::vector<int> cpus;       // -C/--cpu: samples on other CPUs are left out entirely
  std::string symbol_filter;   // --symbol-filter: entries whose symbol name contains it
  bool exclude_other = false;  // --exclude-other: entries with a --parent match only
  std::optional<int> socket;   // --socket-filter: samples on this socket's CPUs (header topology)
  bool any() const {
    return !comms.empty() || !dsos.empty() || !symbols.empty() || !pids.empty() || !tids.empty() ||
           !cpus.empty() || !symbol_filter.empty() || exclude_other || socket.has_value();
  }
};

struct ReportRequest {
  std::string input = "perf.data";
  HistOptions options;
  std::optional<bool> children;  // unset: perf's default, children when the file has callchains
  bool callchain_none = false;   // -g none
  bool order_set = false;        // -g caller/callee given
  CallchainParams callchain;
  bool collapsed_stacks = false;  // -g folded: stackcollapse-perf.pl's lines (-g folded-perf: perf's)
  bool wall = false;              // --wall: on- and off-CPU time as one event (report/wall_clock)
  double percent_limit = 0;
  ReportFilters filters;
  std::string symfs, kallsyms, vmlinux;
  bool demangle = true;
  bool header = false, header_only = false, verbose = false, quiet = false;
  bool show_info = false;                  // -I: the header's topology, caches and memory nodes in full
  bool full_source_path = false;           // --full-source-path: srcline's whole file path
  bool raw_trace = false;                  // --raw-trace: -s trace's payloads as raw fields, no print fmt
  bool nanoseconds = false;                // --ns: the time key in nanoseconds
  uint64_t time_quantum_ns = 100'000'000;  // --time-quantum: the time key's buckets
  bool show_threads = false;               // -T: each thread's counts from a `record -s` file's READ records
  std::string switch_on, switch_off;       // --switch-on/--switch-off: analysis/script/event_switch
  bool show_on_off_events = false;
  bool file_order = false;           // --disable-order: records as the file has them, not sorted by time
  bool relative_percentage = false;  // --percentage relative: of what the filters show
  // --group/--no-group: event groups shown together (unset: the file's groups are); --group on a
  // file without groups makes every event one. --group-sort-idx: which member orders a group.
  std::optional<bool> group;
  bool hierarchy = false;           // --hierarchy: a level per sort key
  std::optional<FieldSpec> fields;  // -F/--fields: the columns, and the order they give
  size_t group_sort_index = 0;
  bool parent_given = false;  // -p: perf then sorts by parent too
  std::string time;           // --time: start,stop in seconds, or percent slices
  // Views of data a file may lack (branch stacks, memory samples, LBR call stacks, AUX traces):
  // checked against the file's events when it opens, with perf's reason where it has none.
  struct {
    bool branch_stack = false, branch_history = false, mem_mode = false, stitch_lbr = false,
         total_cycles = false, itrace = false;
  } data_views;
  std::optional<std::string> field_separator;  // -t
  struct Layout {
    bool show_samples = false;
    bool show_cpu_utilization = false;  // --show-cpu-utilization: sys and usr columns
    std::vector<size_t> column_widths;  // --column-widths: each column's width in order, 0 natural
    bool show_period = false;
  } layout;
};

// Applies -g/--call-graph (and -G) to `request`: mode, threshold, print limit, order, key, value.
Result<void> parse_call_graph(const std::string& spec, ReportRequest& request, bool inverted);
Result<void> parse_filters(ReportFilters& filters, const std::optional<std::string>& comms,
                           const std::optional<std::string>& dsos, const std::optional<std::string>& symbols,
                           const std::optional<std::string>& pids, const std::optional<std::string>& tids);

}  // namespace sonde::analysis
