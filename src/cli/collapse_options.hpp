#pragma once
// stackcollapse-perf.pl's options, shared by collapse and by flamegraph (for perf script input).
#include <CLI/CLI.hpp>
#include <string>

#include "analysis/stacks/stack_collapse.hpp"

namespace sonde::cli {

// Adds --pid, --tid, --inline, --context, --kernel, --jit, --all and --addrs; `help_prefix` goes
// before each help text. Call apply_annotate_all after parsing.
void add_collapse_options(CLI::App& app, analysis::CollapseOptions& options, bool& annotate_all,
                          const std::string& help_prefix = "");
// --all: both annotations.
void apply_annotate_all(analysis::CollapseOptions& options, bool annotate_all);

}  // namespace sonde::cli
