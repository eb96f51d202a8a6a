#pragma once
// perf sched map: one line per context switch showing what runs on each CPU, every task named
// by a two-character short name ("A0", "B0", ... and "." for the idle task) given at its first
// switch-in, with --compact (only the CPUs seen, in order of appearance), --cpus (only these
// columns) and colours for chosen tasks and CPUs.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::analysis {

struct SchedMapOptions {
  std::string input_path = "perf.data";
  bool compact = false;
  std::vector<bool> cpus;        // --cpus (empty: all)
  std::vector<bool> color_cpus;  // --color-cpus
  std::vector<int32_t> color_pids;
  uint32_t max_cpu = 0;  // perf: the CPUs configured on the machine reading the file
};

struct SchedMapCell {
  bool present = false;  // a task has been switched in there
  bool current = false;  // the CPU of this switch
  bool colored_task = false, colored_cpu = false;
  char shortname[2] = {' ', ' '};
};

struct SchedMapLine {
  std::vector<SchedMapCell> cells;  // the columns printed (--cpus applied)
  bool cpu_shown = true;            // false: --cpus leaves this switch's CPU out (columns only)
  uint64_t time = 0;
  bool announce = false;  // first switch-in or a new comm: "SN => comm:tid"
  char shortname[2] = {' ', ' '};
  std::string_view comm;
  int32_t tid = 0;
  bool colored_task = false;
  int new_cpu = -1;  // --compact: the CPU seen for the first time
};

struct SchedMapStats {
  uint64_t nr_timestamps = 0, nr_unordered_timestamps = 0, nr_context_switch_bugs = 0;
  uint64_t nr_events = 0, nr_lost_events = 0, nr_lost_chunks = 0;
};

class SchedMapSink {
 public:
  virtual ~SchedMapSink() = default;
  virtual void line(const SchedMapLine& line) = 0;
};

Result<SchedMapStats> sched_map(const SchedMapOptions& options, SchedMapSink& sink, Diagnostics& diagnostics);

}  // namespace sonde::analysis
