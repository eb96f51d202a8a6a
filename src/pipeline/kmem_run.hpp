#pragma once
// sonde kmem: the event list `kmem record` records, as perf kmem record builds it, and stat's run
// (analysis/kmem's pass, output/kmem's text on stdout).
#include <string>
#include <vector>

#include "analysis/kmem/kmem_scan.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::pipeline {

// perf's `kmem record` arguments before the user's: system-wide, raw samples, every event; the
// slab events (with kmalloc_node and kmem_cache_alloc_node on kernels that still have them), the
// page events with callchains.
std::vector<std::string> kmem_record_arguments(bool slab, bool page);

Result<void> run_kmem_stat(const analysis::KmemOptions& options, Diagnostics& diagnostics);

}  // namespace sonde::pipeline
