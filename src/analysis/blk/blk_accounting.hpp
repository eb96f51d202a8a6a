#pragma once
// blkparse's pass over blktrace traces: every input's per-CPU streams merged by time (blkparse's
// list insertion, so ties fall as they fall there), times made relative to the first trace,
// process names from the kernel's notes, and each device's counters per CPU — queued, dispatched, requeued,
// completed and merged I/O with their KiB, SCSI pass-through (PC) requests apart, unplugs, the queue depth —
// as blkparse keeps them, its known slips included (a PC read's KiB lands in the plain reads, a requeue
// subtracts from the dispatched KiB without a floor). blkparse 1.2 is the reference (Debian's): a split
// request's completion prints as the kernel gave it (later blkparse puts the request back together).
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/error.hpp"
#include "format/blktrace_file.hpp"

namespace sonde::analysis {

// A count with its size: whole KiB, and the bytes left over below a KiB each time, as blkparse
// adds them (its KiB column shows kib + (bytes >> 10)).
struct BlkAmount {
  uint64_t count = 0, kib = 0, bytes = 0;
  uint64_t shown_kib() const { return kib + (bytes >> 10); }
};

// Index 0 reads, 1 writes.
struct BlkIoStats {
  std::array<BlkAmount, 2> queued{}, dispatched{}, completed{}, merged{};
  std::array<uint64_t, 2> requeued{};
  std::array<BlkAmount, 2> queued_pc{}, dispatched_pc{};
  std::array<uint64_t, 2> requeued_pc{}, completed_pc{};
  uint64_t io_unplugs = 0, timer_unplugs = 0;

  void add(const BlkIoStats& other);
  bool has_pc() const;
};

struct BlkCpuSummary {
  int cpu = 0;
  uint64_t records = 0;  // every trace merged from this CPU's stream (notes of names excepted)
  BlkIoStats stats;
};

// One input's summary: an -i name, or a device of a trace.dat.
struct BlkInputSummary {
  std::string label;
  std::vector<BlkCpuSummary> cpus;  // by CPU, those with records only
  std::array<uint32_t, 2> max_depth{};
  uint64_t events = 0;                     // traces printed (those with a category bit)
  uint64_t first_time = 0, last_time = 0;  // relative: the first printed, the last merged
  bool any_printed = false;
};

// One CPU's traces in their stream's order, notes included, a trace at a time.
class BlkTraceSource {
 public:
  virtual ~BlkTraceSource() = default;
  // The next trace into `trace`; false at the end.
  virtual Result<bool> next(format::BlkTrace& trace) = 0;
};

// Traces held in memory (a trace.dat's, gathered per CPU) as a source.
class BlkTraceList : public BlkTraceSource {
 public:
  explicit BlkTraceList(std::vector<format::BlkTrace> traces) : traces_(std::move(traces)) {}
  Result<bool> next(format::BlkTrace& trace) override;

 private:
  std::vector<format::BlkTrace> traces_;
  size_t next_ = 0;
};

struct BlkInput {
  std::string label;
  std::vector<std::unique_ptr<BlkTraceSource>> cpus;  // index: the CPU (its file's number); null: none
};

struct BlkParseResult {
  std::vector<BlkInputSummary> inputs;
  bool saw_driver_data = false;  // blkparse's closing line about driver data it cannot show
};

// One trace as it is printed: `time` relative, `name` the pid's process name (nullopt when no
// note named it).
struct BlkParsedTrace {
  const format::BlkTrace& trace;
  int cpu = 0;
  uint64_t time = 0;
  std::optional<std::string_view> name;
};

using BlkWarning = std::function<void(const std::string&)>;

// The counters, fed one trace at a time in merge order (by parse_blk_inputs, or live).
class BlkAccounting {
 public:
  explicit BlkAccounting(BlkWarning on_warning) : on_warning_(std::move(on_warning)) {}
  // A process note's name; the first for a pid wins.
  void learn_name(uint32_t pid, std::string_view comm);
  bool knows_name(uint32_t pid) const { return names_.contains(pid); }
  size_t add_input(std::string label);
  // One merged trace (notes of names excepted), `time` relative to the first. Returns the
  // printed form, or nullopt for a trace blkparse does not print (no category bit).
  std::optional<BlkParsedTrace> account(size_t input, int cpu, const format::BlkTrace& trace, uint64_t time);
  BlkParseResult result() const;

 private:
  struct InputState {
    BlkInputSummary summary;
    std::vector<std::optional<BlkCpuSummary>> cpus;
    std::array<uint32_t, 2> depth{};
  };
  BlkCpuSummary& cpu_summary(InputState& input, int cpu);

  BlkWarning on_warning_;
  std::vector<InputState> inputs_;
  std::unordered_map<uint32_t, std::string> names_;
  bool saw_driver_data_ = false;
};

// blkparse over whole inputs, streamed: each CPU's next trace read when its last one is printed,
// notes of names taken as they are read; `on_trace` gets every printed trace.
Result<BlkParseResult> parse_blk_inputs(std::vector<BlkInput>& inputs,
                                        const std::function<void(const BlkParsedTrace&)>& on_trace,
                                        const BlkWarning& on_warning);

// The first category bit set: the trace is one blkparse prints and counts.
inline bool blk_trace_is_printed(const format::BlkTrace& trace) { return (trace.action >> 16) != 0; }

}  // namespace sonde::analysis
