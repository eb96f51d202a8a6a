#pragma once
// Names for the addresses a live trace prints (--call-graph frames, --pf's fault sites): the
// traced tasks' maps followed as perf follows them — a dummy event's MMAP2, COMM, FORK and EXIT
// records, after the maps that existed at the start — in a session::Machine, and each address's
// symbol from the symbolizer. Kept apart from the BPF tracer so that a trace without call graphs
// or faults opens nothing of it.
#include <sys/types.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "capture/sampling_session.hpp"
#include "session/machine.hpp"
#include "session/session.hpp"
#include "symbols/symbolizer.hpp"
#include "unwind/dwarf_unwinder.hpp"

namespace sonde::pipeline {

// What an address is in a traced task.
struct AddressPlace {
  const session::Dso* dso = nullptr;  // nullptr: in no known map
  uint64_t map_offset = 0;            // the address less its map's start (perf's "dso@0x...")
  uint64_t dso_address = 0;           // in the DSO's symbol space; 0 outside every map
  const symbols::Symbol* symbol = nullptr;
  uint64_t symbol_offset = 0;
  bool kernel = false;
  bool executable = false;  // the map is code
};

class TraceSymbols {
 public:
  // `target` as the tracer follows it; the workload's events start at its exec. `data_maps`
  // follows data mappings too (for fault addresses), as perf trace --pf does.
  static Result<std::unique_ptr<TraceSymbols>> open(const capture::SamplingTarget& target, bool from_exec,
                                                    bool data_maps);
  ~TraceSymbols();

  Result<void> enable();
  // Applies the side-band gathered since the last call.
  void update();
  AddressPlace place(pid_t pid, pid_t tid, uint64_t address, bool kernel);
  // --call-graph dwarf: a call's user stack unwound with the DSOs' CFI (perf's registers: ax, bx,
  // cx, dx, si, di, bp, sp, ip, r8..r15), each frame with the functions inlined at it, as perf
  // trace names them.
  struct Frame {
    AddressPlace place;
    std::string function;  // set for inline frames and DWARF-named holders
    bool inlined = false;
  };
  std::vector<Frame> unwind(pid_t pid, pid_t tid, std::span<const uint64_t> regs,
                            std::span<const uint8_t> stack);

 private:
  TraceSymbols() = default;
  std::optional<capture::SamplingSession> capture_;
  session::Machine machine_;
  session::SessionStats stats_;
  std::unique_ptr<symbols::Symbolizer> symbolizer_;
  std::unique_ptr<unwind::DwarfUnwinder> unwinder_;
};

}  // namespace sonde::pipeline
