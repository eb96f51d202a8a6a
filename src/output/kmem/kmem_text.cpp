#include "output/kmem/kmem_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace sonde::output {

namespace {

constexpr std::string_view kDashes =
    "--------------------------------------------------------------------------------------------------------"
    "-";
static_assert(kDashes.size() == 105);

using Out = std::back_insert_iterator<std::string>;

// perf prints rows while `n_lines--` allows and then "..." when the count ran out exactly at
// -1: after the last allowed row with more to come, or at once for an empty table with no limit.
template <typename Row, typename Print>
bool print_rows(const std::vector<Row>& rows, int limit, Print print) {
  int left = limit;
  size_t at = 0;
  while (at < rows.size()) {
    if (left-- == 0) break;
    print(rows[at++]);
  }
  return left == -1;
}

void slab_table(const std::vector<analysis::KmemRow<analysis::SlabSite>>& rows, int limit, bool callers,
                std::string& out) {
  Out it(out);
  fmt::format_to(it, "{}\n {:<34} | Total_alloc/Per | Total_req/Per   | Hit      | Ping-pong | Frag\n{}\n",
                 kDashes, callers ? "Callsite" : "Alloc Ptr", kDashes);
  bool dots = print_rows(rows, limit, [&](const analysis::KmemRow<analysis::SlabSite>& row) {
    const analysis::SlabSite& s = row.site;
    fmt::format_to(it, " {:<34} | {:>9}/{:<5} | {:>9}/{:<5} | {:>8} | {:>9} | {:6.3f}%\n", row.label,
                   s.bytes_alloc, s.bytes_alloc / s.hit, s.bytes_req, s.bytes_req / s.hit, s.hit, s.pingpong,
                   analysis::fragmentation(s.bytes_req, s.bytes_alloc));
  });
  if (dots)
    out +=
        " ...                                | ...             | ...             | ...      | ...       | "
        "...   \n";
  fmt::format_to(it, "{}\n", kDashes);
}

void slab_summary(const analysis::SlabSummary& s, std::string& out) {
  Out it(out);
  fmt::format_to(it, "\nSUMMARY (SLAB allocator)\n========================\n");
  fmt::format_to(it, "Total bytes requested: {}\nTotal bytes allocated: {}\nTotal bytes freed:     {}\n",
                 s.requested, s.allocated, s.freed);
  if (s.allocated > s.freed) fmt::format_to(it, "Net total bytes allocated: {}\n", s.allocated - s.freed);
  fmt::format_to(it, "Total bytes wasted on internal fragmentation: {}\n", s.allocated - s.requested);
  fmt::format_to(it, "Internal fragmentation: {:f}%\n", analysis::fragmentation(s.requested, s.allocated));
  fmt::format_to(it, "Cross CPU allocations: {}/{}\n", s.cross_node_allocs, s.allocs);
}

std::string_view migrate_type_name(uint32_t type) {
  constexpr std::string_view kNames[] = {"UNMOVABL", "RECLAIM", "MOVABLE", "RESERVED", "CMA/ISLT", "UNKNOWN"};
  return type < std::size(kNames) ? kNames[type] : "UNKNOWN";
}

std::string_view gfp_compact(const analysis::GfpTable& gfps, uint32_t flags) {
  const analysis::GfpTable::Names* names = gfps.find(flags);
  return names != nullptr ? std::string_view(names->compact) : "(null)";
}

void page_tables(const analysis::KmemReport& report, std::string& out) {
  Out it(out);
  const size_t gfp_width = std::max<size_t>(9, report.gfps.compact_width());
  const std::string_view total = report.options.live ? "Live" : "Total";
  if (report.options.caller || report.options.alloc) {
    out += "#\n# GFP flags\n# ---------\n";
    for (const auto& [flags, names] : report.gfps.entries())
      fmt::format_to(it, "# {:08x}: {:>{}}: {}\n", flags, names.compact, report.gfps.compact_width(),
                     names.human);
  }
  if (report.options.caller) {
    fmt::format_to(it, "\n{}\n {:>5} alloc (KB) | Hits      | Order | Mig.type | {:<{}} | Callsite\n{}\n",
                   kDashes, total, "GFP flags", gfp_width, kDashes);
    bool dots = print_rows(report.page_callers, report.options.caller_lines, [&](const auto& row) {
      const analysis::PageSite& s = row.site;
      fmt::format_to(it, " {:>16} | {:>9} | {:>5} | {:>8} | {:<{}} | {}\n", s.alloc_bytes / 1024, s.nr_alloc,
                     s.order, migrate_type_name(s.migrate_type), gfp_compact(report.gfps, s.gfp_flags),
                     gfp_width, row.label);
    });
    if (dots)
      fmt::format_to(it, " ...              | ...       | ...   | ...      | {:<{}} | ...\n", "...",
                     gfp_width);
    fmt::format_to(it, "{}\n", kDashes);
  }
  if (report.options.alloc) {
    fmt::format_to(
        it, "\n{}\n {:<16} | {:>5} alloc (KB) | Hits      | Order | Mig.type | {:<{}} | Callsite\n{}\n",
        kDashes, report.use_pfn ? "PFN" : "Page", total, "GFP flags", gfp_width, kDashes);
    bool dots = print_rows(report.page_allocs, report.options.alloc_lines, [&](const auto& row) {
      const analysis::PageSite& s = row.site;
      if (report.use_pfn)
        fmt::format_to(it, " {:>16} | ", s.page);
      else
        fmt::format_to(it, " {:016x} | ", s.page);
      fmt::format_to(it, "{:>16} | {:>9} | {:>5} | {:>8} | {:<{}} | {}\n", s.alloc_bytes / 1024, s.nr_alloc,
                     s.order, migrate_type_name(s.migrate_type), gfp_compact(report.gfps, s.gfp_flags),
                     gfp_width, row.label);
    });
    if (dots)
      fmt::format_to(it,
                     " ...              | ...              | ...       | ...   | ...      | {:<{}} | ...\n",
                     "...", gfp_width);
    fmt::format_to(it, "{}\n", kDashes);
  }
}

void page_summary(const analysis::PageSummary& s, std::string& out) {
  Out it(out);
  const uint64_t alloc_freed = s.frees - s.unmatched_frees;
  const uint64_t alloc_freed_bytes = s.free_bytes - s.unmatched_free_bytes;
  auto line = [&](std::string_view what, uint64_t count, uint64_t bytes) {
    fmt::format_to(it, "{:<30}: {:>16}   [ {:>16} KB ]\n", what, count, bytes / 1024);
  };
  out += "\nSUMMARY (page allocator)\n========================\n";
  line("Total allocation requests", s.allocs, s.alloc_bytes);
  line("Total free requests", s.frees, s.free_bytes);
  out += "\n";
  line("Total alloc+freed requests", alloc_freed, alloc_freed_bytes);
  line("Total alloc-only requests", s.allocs - alloc_freed, s.alloc_bytes - alloc_freed_bytes);
  line("Total free-only requests", s.unmatched_frees, s.unmatched_free_bytes);
  out += "\n";
  line("Total allocation failures", s.failures, s.failure_bytes);
  out += "\n";
  fmt::format_to(it, "{:>5}  {:>12}  {:>12}  {:>12}  {:>12}  {:>12}\n", "Order", "Unmovable", "Reclaimable",
                 "Movable", "Reserved", "CMA/Isolated");
  fmt::format_to(it, "{0:.5}  {0:.12}  {0:.12}  {0:.12}  {0:.12}  {0:.12}\n", kDashes);
  for (int order = 0; order < analysis::kPageOrders; ++order) {
    fmt::format_to(it, "{:>5}", order);
    for (int type = 0; type < analysis::kMigrateTypes - 1; ++type) {
      int32_t count = s.orders[static_cast<size_t>(order)][static_cast<size_t>(type)];
      if (count != 0)
        fmt::format_to(it, "  {:>12}", count);
      else
        out += "             .";
    }
    out += '\n';
  }
}

}  // namespace

void append_kmem_report(const analysis::KmemReport& report, std::string& out) {
  if (report.options.slab) {
    if (report.options.caller) slab_table(report.slab_callers, report.options.caller_lines, true, out);
    if (report.options.alloc) slab_table(report.slab_pointers, report.options.alloc_lines, false, out);
    slab_summary(report.slab_summary, out);
  }
  if (report.options.page) {
    page_tables(report, out);
    page_summary(report.page_summary, out);
  }
}

}  // namespace sonde::output
