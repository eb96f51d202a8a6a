#pragma once
// sonde ftrace stat's table: one line per CPU of a buffer's ring-buffer statistics.
#include <string>
#include <utility>
#include <vector>

#include "ftrace/buffer_stats.hpp"

namespace sonde::output {

// "top-level buffer, 1408 KB per CPU" (or "instance NAME buffer, ..."), the column names, and a
// line per CPU. `size_kb` is buffer_size_kb's first line ("?" when unreadable).
std::string format_buffer_stats(const std::string& buffer_name, const std::string& size_kb,
                                const std::vector<std::pair<int, ftrace::CpuBufferStats>>& cpus);

}  // namespace sonde::output
