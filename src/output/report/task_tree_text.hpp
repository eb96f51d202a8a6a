#pragma once
// perf report --tasks' text: "#      pid      tid     ppid  comm", then a line per thread,
// indented one space per level under the thread that forked it.
#include <cstdio>
#include <vector>

#include "analysis/report/task_tree.hpp"

namespace sonde::output {

void print_task_tree(std::FILE* out, const std::vector<analysis::TaskLine>& tasks);

}  // namespace sonde::output
