#pragma once
// Live traces split a call's line as perf does: the BPF tracer prints a pending entry alone when
// another event interrupts it (UNFINISHED) and flags the call's exit (RESUMED). The interrupting
// program runs on another CPU than the call, so the two records can race: the exit may miss the
// flag, or reach the ring before the entry. This keeps the lines whole and unrepeated either way.
#include <cstdint>
#include <unordered_map>

#include "kernel/syscall_tracer.hpp"

namespace sonde::analysis {

class SplitCallLines {
 public:
  struct Line {
    bool print = true;
    uint8_t flags = 0;  // the record's flags, corrected
  };
  Line admit(const kernel::SyscallTraceEvent& event);

 private:
  // By thread: the entry time of a call whose entry was printed alone, waiting for its exit;
  // and of a call printed whole whose late interrupted entry is still to come (and be dropped).
  std::unordered_map<uint32_t, uint64_t> entries_printed_;
  std::unordered_map<uint32_t, uint64_t> exits_printed_;
};

}  // namespace sonde::analysis
