#pragma once
// sonde probe's runs: add probes (resolve each definition, name its events as perf does, write
// them to uprobe_events, or only print them with -n/-D), list and delete the probes defined, show
// the variables at a probe point and the functions of a binary. Failures carry perf's errno
// (ENOENT: not found, EINVAL: a bad definition or a kernel refusal, EEXIST: a name taken,
// EOPNOTSUPP: no kernel probes), which the command turns into perf's exit status.
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::pipeline {

struct ProbeRunOptions {
  std::string binary;  // -x; "" for kernel probes
  bool dry_run = false;
  bool definitions_only = false;  // -D: print the lines that would be written
  bool keep_definitions = false;  // -v: the lines written are returned too
  bool force = false;
  bool inlines = true;
  unsigned max_probes = 128;
  symbols::SymbolizerOptions symbols;
};

struct ProbeAddOutcome {
  std::vector<std::string> warnings;  // one line each (stderr, unless -q)
  std::string added_text;             // "Added new event(s):" and the hint (stderr, as perf)
  std::string definitions;            // with -D or -v: the lines, one per probe
};

// perf's --target PID: `binary` as that process sees it, through its mount namespace
// (/proc/PID/root); ESRCH when there is no such process.
Result<std::string> binary_in_target(const std::string& pid, const std::string& binary);

Result<ProbeAddOutcome> add_probes(const std::vector<std::string>& definitions,
                                   const ProbeRunOptions& options);
// -l [FILTER]: one line per probe, perf's order.
Result<std::string> list_probes(const std::string& filter, const symbols::SymbolizerOptions& symbols);
// -d PATTERN: "Removed event: GROUP:EVENT" per event.
Result<std::string> delete_probes(const std::string& pattern);
// -V SPEC; a warning (a GNU indirect function) goes to `diagnostics`.
Result<std::string> probe_variables(const std::string& definition, const ProbeRunOptions& options,
                                    bool externs, Diagnostics& diagnostics);
// -L RANGE: the source with the lines a probe can land on numbered; `source_dir` is -s.
Result<std::string> probe_source_lines(const std::string& range, const ProbeRunOptions& options,
                                       const std::string& source_dir);
// -F [FILTER]: the binary's functions (with -x) or the kernel's, names sorted.
Result<std::string> probe_functions(const std::vector<std::string>& filters, const ProbeRunOptions& options,
                                    bool demangle);

}  // namespace sonde::pipeline
