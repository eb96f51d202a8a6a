#pragma once
// What the HTML report embeds, gathered in one replay: every sample as a row of columns (time,
// thread, event, stack, weight), the stacks as a table of (prefix, frame) pairs from the root,
// so that a stack id is a node of the top-down call tree, and the frames once each (function,
// DSO, source file and line, kernel or user; inlined functions are frames of their own).
// Samples weigh their period, as report weighs them (nanoseconds for the clock events and
// off-CPU time). Memory: five columns per sample and the distinct
// stacks and frames.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/report/hist_index.hpp"
#include "output/convert/profile_locations.hpp"
#include "output/script/script_symbols.hpp"
#include "session/session.hpp"
#include "session/tracepoint_formats.hpp"

struct tep_event;

namespace sonde::output {

struct HtmlReportFrame {        // a function of a DSO
  std::string name, dso, file;  // file: where it was first seen, "" when unknown
  int64_t line = 0;             // 0: the trees count functions, not lines
  bool kernel = false;
};

struct HtmlReportThread {
  int32_t pid = 0, tid = 0;
  std::string comm;
  uint64_t samples = 0;
};

struct HtmlReportEvent {
  std::string name;
  bool nanoseconds = false;  // its periods are nanoseconds (else counts of its unit)
  uint64_t samples = 0;
};

// A function where the busiest event's samples land most (their leaf), with the weight at each
// of its addresses (ELF virtual addresses), for the source and disassembly view.
struct HtmlHotFunction {
  const session::Dso* dso = nullptr;
  std::string name;
  uint64_t start = 0;  // the ELF virtual address of the symbol
  double total = 0;
  std::map<uint64_t, double> weights;
};

// Who ran on a CPU from one sched_switch to the next (the idle task's spans are left out).
struct HtmlCpuSlice {
  uint64_t start = 0, end = 0;  // nanoseconds
  uint32_t cpu = 0;
  int32_t pid = 0;
  std::string comm;
};

// The CPU lanes as sched_switch payloads arrive, in time order per CPU.
class HtmlCpuLanes {
 public:
  // A sched_switch payload (`format` its event's): the CPU's running slice ends, the next task's
  // begins.
  void on_switch(uint32_t cpu, uint64_t time, const tep_event* format, const uint8_t* raw, size_t size);
  // Ends the slices still open at `last_time` and hands over all of them.
  std::vector<HtmlCpuSlice> finish(uint64_t last_time);

 private:
  struct CpuTrack {
    bool open = false;
    uint64_t start = 0;
    int32_t pid = 0;
    std::string comm;
  };
  std::vector<CpuTrack> cpus_;
  std::vector<HtmlCpuSlice> slices_;
};

// The finished tables.
struct HtmlReportTables {
  std::vector<HtmlReportEvent> events;
  std::vector<HtmlReportThread> threads;
  std::vector<HtmlReportFrame> frames;
  std::vector<int32_t> stack_prefix;  // -1 for a root frame
  std::vector<uint32_t> stack_frame;
  // Per sample, in file order.
  std::vector<uint64_t> times;                          // nanoseconds
  std::vector<uint32_t> sample_threads, sample_stacks;  // sample_stacks: UINT32_MAX for none
  std::vector<uint8_t> sample_events;
  std::vector<double> weights;
  std::vector<HtmlCpuSlice> cpu_slices;        // from sched_switch, when the file has it with CPUs
  size_t busiest_event = 0;                    // the event with the most samples: the page opens on it
  std::vector<HtmlHotFunction> hot_functions;  // its hottest user functions, hottest first
};

class HtmlReportData : public session::SessionVisitor {
 public:
  HtmlReportData(session::Session& session, ScriptSymbols& symbols);

  void on_sample(const session::SampleEvent& sample) override;
  // Names the frames and turns the samples' location stacks into frame stacks.
  HtmlReportTables finish();

 private:
  void prepare();
  void find_hot_functions();

  session::Session& session_;
  ScriptSymbols& symbols_;
  ProfileLocations locations_;
  HtmlReportTables tables_;
  analysis::KeyIndex<2> thread_ids_;                   // pid, tid
  analysis::SequenceIndexOf<uint32_t> stacks_;         // location ids, leaf first
  std::vector<uint32_t> location_stacks_;              // per sample: ids in stacks_
  std::unordered_map<uint64_t, double> leaf_weights_;  // by event << 32 | leaf location id
  std::vector<uint32_t> scratch_;
  std::unique_ptr<session::TracepointFormats> formats_;
  std::vector<const tep_event*> sched_switch_formats_;  // by event: its format if it is sched_switch
  HtmlCpuLanes cpu_lanes_;
  uint64_t last_time_ = 0;
  bool prepared_ = false;
};

}  // namespace sonde::output
