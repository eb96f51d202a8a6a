#pragma once
// perf lock contention's table in perf 6.1's layout: a column per field (counts 10 wide, wait
// times 12 wide in perf's units), the lock type and caller (or pid and comm with -t), -v's call
// stacks under each row, and the debug footer on broken sequences.
#include <string>
#include <vector>

#include "analysis/lock/lock_contention.hpp"

namespace sonde::output {

struct LockTextOptions {
  std::vector<analysis::LockField> fields;
  bool threads = false;  // -t: pid and comm instead of type and caller
  bool quiet = false;    // -q: no header, no footer
  bool verbose = false;  // -v: call stacks and the footer always
  int entries = 0;       // -E: rows printed (at least one)
};

void append_lock_contention(const analysis::LockContention& contention, const LockTextOptions& options,
                            std::string& out);

// perf lock report's table: the name (cut to 16 characters and "..." from 20 on), a column per
// field; entries never acquired are left out but counted in the footer's total.
void append_lock_report(const analysis::LockContention& contention, const LockTextOptions& options,
                        std::string& out);

// perf lock info: -t's threads ("Thread ID: comm"), -m's locks by name and address.
void append_lock_threads(const analysis::LockContention& contention, std::string& out);
void append_lock_map(const analysis::LockContention& contention, std::string& out);

// A wait as perf prints it in a `width`-wide column: "3.15 ms", "17.87 us", "500 ns".
void append_lock_wait(std::string& out, uint64_t nanoseconds, int width);

}  // namespace sonde::output
