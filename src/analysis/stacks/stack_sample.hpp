#pragma once
// One sampled call stack, the input of folding (sonde collapse, sonde flamegraph, and later
// sonde report -g folded). Two producers make these: the perf script text parser
// (analysis/script_text) today, and the perf.data session with resolved symbols later. Both
// spell names and DSOs the way perf script prints them, so that the folding rules (the ones of
// stackcollapse-perf.pl, in analysis/stack_collapse) give the same folded lines for both.
//
// The views point into storage the producer keeps alive for the duration of the call that hands
// the sample over (the mmap'ed input, or the session's symbol tables); consumers copy what they
// keep.
#include <cstdint>
#include <span>
#include <string_view>

namespace sonde::analysis {

struct StackFrame {
  uint64_t ip = 0;
  // The address as the input spelled it (perf script: lowercase hex without 0x). Empty: the
  // consumer prints `ip` in lowercase hex, as perf script does.
  std::string_view ip_text;
  // The function name as perf script prints it, without the +0x offset: "[unknown]" when
  // unresolved. Several frames of one printed line ("a->b", older perf's inline notation) carry
  // the same ip; all but the first are `inlined`.
  std::string_view symbol;
  uint64_t symoff = 0;
  bool has_symoff = false;
  // The DSO as perf script prints it between parentheses: a path, "[kernel.kallsyms]",
  // "/tmp/perf-PID.map" for JIT code, "[unknown]" when unknown.
  std::string_view dso;
  // Source location ("file.c:12") when the producer has it (perf script -F+srcline); empty if not.
  std::string_view srcline;
  bool has_srcline = false;  // a srcline line was present (it may still be empty)
  bool inlined = false;      // an inline frame inside the function of the next (caller) frame
  // A producer's dense identity of the frame, or 0: frames with the same id have the same
  // fields, so consumers may compute what they need from a frame once per id (the perf.data
  // producer gives one per (DSO, address); the text parser none).
  uint32_t id = 0;
};

struct StackSample {
  std::string_view comm;
  int64_t pid = -1;  // -1 when the input had only the tid (perf script's default fields)
  int64_t tid = -1;
  std::string_view event;  // "cpu-clock", "cycles:u", ...; empty when the line had none
  uint64_t period = 1;
  uint64_t weight = 0;                 // PERF_SAMPLE_WEIGHT (sonde's off-CPU state); 0 when none
  uint64_t time_ns = 0;                // 0 when the producer does not know it
  std::span<const StackFrame> frames;  // leaf first, as perf script prints them
};

}  // namespace sonde::analysis
