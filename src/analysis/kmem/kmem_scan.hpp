#pragma once
// perf kmem stat's pass over a recording: the kmem tracepoints' samples (kmalloc,
// kmem_cache_alloc and their _node forms, kfree, kmem_cache_free, mm_page_alloc, mm_page_free)
// into KmemStats, each call site named once by the kernel's symbols, each page allocation's call
// site found in its callchain as the first frame outside the page allocator, and each distinct
// GFP value named from the event's printed payload. The tables come out in perf's order.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kmem/gfp_flags.hpp"
#include "analysis/kmem/kmem_stats.hpp"
#include "analysis/script/script_filter.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"

namespace sonde::analysis {

struct KmemOptions {
  std::string input_path = "perf.data";
  bool slab = true, page = false;
  bool caller = false, alloc = false;                          // --caller, --alloc: the tables to print
  int caller_lines = -1, alloc_lines = -1;                     // -l: rows of each (-1: all)
  std::vector<SlabSortKey> slab_caller_sort, slab_alloc_sort;  // empty: perf's defaults
  std::vector<PageSortKey> page_caller_sort, page_alloc_sort;
  bool raw_ip = false;  // --raw-ip: slab call sites as addresses
  bool live = false;    // --live
  std::vector<TimeRange> times;
};

template <typename Site>
struct KmemRow {
  Site site;
  std::string label;  // the call site's name (or the pointer) as perf prints it
};

struct KmemReport {
  KmemOptions options;   // what was asked for
  bool use_pfn = false;  // mm_page_alloc has a pfn field (else a struct page pointer)
  std::vector<KmemRow<SlabSite>> slab_callers, slab_pointers;
  std::vector<KmemRow<PageSite>> page_callers, page_allocs;
  GfpTable gfps;
  SlabSummary slab_summary;
  PageSummary page_summary;
};

// Reads the file once. Fails as perf does when the file records none of the events asked for.
Result<KmemReport> kmem_stat(const KmemOptions& options, Diagnostics& diagnostics);

}  // namespace sonde::analysis
