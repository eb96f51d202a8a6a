#pragma once
// perf lock contention -b's table from waits totalled in the kernel (kernel/'s BPF tracer): each
// total named as perf 6.1's BPF path names it — by thread (-t) with the thread's name, else by
// the first frame of its kernel stack that is not scheduler or lock code, as
// "sym+0xoff" by the kernel's symbols (the address when none names it) — and ordered largest
// first by -k.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/lock/lock_contention.hpp"

namespace sonde::analysis {

struct LockWaitTotalRow {
  uint64_t id = 0;  // the stack's id, or the thread's
  uint64_t total_ns = 0, min_ns = 0, max_ns = 0;
  uint32_t count = 0, flags = 0;
  std::string comm;             // with -t
  std::vector<uint64_t> stack;  // kernel frames, innermost first (without -t)
};

// `stack`s start past --stack-skip already (the tracer skips those frames in the kernel, as
// perf's does); `lost` waits the tracer could not count.
Result<LockContention> lock_contention_from_totals(std::vector<LockWaitTotalRow> rows, uint64_t lost,
                                                   const LockOptions& options);

}  // namespace sonde::analysis
