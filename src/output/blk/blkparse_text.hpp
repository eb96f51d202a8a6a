#pragma once
// blkparse's default text: one line per trace ("  7,0    1        1     0.000000000  1234  Q  WS
// 2048 + 8 [dd]") and the summary that ends it — each CPU's block of queued, dispatched, requeued,
// completed and merged I/O, the total, throughput, events and skips — in blkparse 1.2's layout
// under the C locale (no thousands separators: blkparse asks for en_US, which Debian machines
// seldom have).
#include <fmt/format.h>

#include <string>
#include <string_view>

#include "analysis/blk/blk_accounting.hpp"

namespace sonde::output {

// The line of one printed trace, appended to `out`; blkparse's complaint about an action it does
// not know goes to `warning` (the line is then left out, as blkparse leaves it).
void append_blkparse_line(const analysis::BlkParsedTrace& parsed, fmt::memory_buffer& out,
                          std::string& warning);

// The summary after the lines (every input's blocks, throughput, events, skips).
std::string format_blkparse_summary(const analysis::BlkParseResult& result);

// The closing note when driver data was read past (result.saw_driver_data); blkparse prints it
// through its second stdio stream, with the "Input file ... added" lines.
std::string_view blkparse_driver_data_note();

}  // namespace sonde::output
