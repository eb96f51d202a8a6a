#pragma once
// perf kmem stat's bookkeeping: the slab allocator's allocations by pointer and by call site (hits,
// bytes requested and allocated, frees on another CPU as "ping-pong"), the page allocator's by page
// and by call site (order, migrate type, GFP flags), the order × migrate-type table and the
// summaries; then each table in perf's order — its keys' tree order first, then a stable sort,
// largest first, by the --sort keys.
#include <array>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/error.hpp"
#include "base/flat_hash_map.hpp"

namespace sonde::analysis {

struct SlabSite {  // one pointer's or one call site's allocations
  uint64_t call_site = 0, ptr = 0;
  uint64_t bytes_req = 0, bytes_alloc = 0, last_alloc = 0;
  uint32_t hit = 0, pingpong = 0;
  int16_t alloc_cpu = -1;  // the CPU of the live allocation, -1 once freed
};

struct PageSite {  // one page's or one call site's allocations of one order, migrate type and GFP
  uint64_t page = 0, callsite = 0;
  uint32_t order = 0, migrate_type = 0, gfp_flags = 0;
  uint64_t alloc_bytes = 0, free_bytes = 0;
  int32_t nr_alloc = 0, nr_free = 0;
};

enum class SlabSortKey { ptr, callsite, hit, bytes, frag, pingpong };
enum class PageSortKey { page, callsite, hit, bytes, order, migtype, gfp };

// perf's -s lists ("frag,hit,bytes"); an unknown key is an error naming it and the known ones.
Result<std::vector<SlabSortKey>> parse_slab_sort_keys(std::string_view text);
Result<std::vector<PageSortKey>> parse_page_sort_keys(std::string_view text);

// perf's fragmentation percentage: 100 - 100 * requested / allocated, 0 with nothing allocated.
double fragmentation(uint64_t requested, uint64_t allocated);

constexpr int kPageOrders = 11;   // perf's MAX_PAGE_ORDER
constexpr int kMigrateTypes = 6;  // perf's MAX_MIGRATE_TYPES (the last one, UNKNOWN, not tabled)

struct SlabSummary {
  uint64_t requested = 0, allocated = 0, freed = 0;
  uint64_t allocs = 0, cross_node_allocs = 0;
};

struct PageSummary {
  uint64_t allocs = 0, alloc_bytes = 0;
  uint64_t frees = 0, free_bytes = 0;
  uint64_t unmatched_frees = 0, unmatched_free_bytes = 0;  // frees of pages not seen allocated
  uint64_t failures = 0, failure_bytes = 0;
  std::array<std::array<int32_t, kMigrateTypes>, kPageOrders> orders{};
};

class KmemStats {
 public:
  // `live`: perf's --live, pages still allocated at the end instead of every allocation.
  KmemStats(bool live, uint64_t page_size) : live_(live), page_size_(page_size) {}
  // The recording's page size (its tracing data says), before the first page event.
  void set_page_size(uint64_t page_size) { page_size_ = page_size; }

  // `cross_node`: the allocation's node is known and is not its CPU's node.
  void slab_alloc(uint64_t call_site, uint64_t ptr, int32_t bytes_req, int32_t bytes_alloc, uint32_t cpu,
                  bool cross_node);
  void slab_free(uint64_t ptr, uint32_t cpu);
  // `valid`: the page (or pfn) is a real one; a failed allocation only counts in the summary.
  void page_alloc(uint64_t page, bool valid, uint32_t order, uint32_t gfp_flags, uint32_t migrate_type,
                  uint64_t callsite);
  void page_free(uint64_t page, uint32_t order);

  // The tables in perf's printing order.
  std::vector<SlabSite> slab_by_caller(const std::vector<SlabSortKey>& keys) const;
  std::vector<SlabSite> slab_by_pointer(const std::vector<SlabSortKey>& keys) const;
  std::vector<PageSite> pages_by_caller(const std::vector<PageSortKey>& keys) const;
  std::vector<PageSite> pages_by_page(const std::vector<PageSortKey>& keys) const;

  const SlabSummary& slab_summary() const { return slab_; }
  const PageSummary& page_summary() const { return pages_; }

 private:
  // Page or call site, order, migrate type, GFP flags.
  using PageKey = std::tuple<uint64_t, uint32_t, uint32_t, uint32_t>;
  struct PageKeyHash {
    size_t operator()(const PageKey& key) const {
      auto [where, order, type, gfp] = key;
      return std::hash<uint64_t>()(where ^ (uint64_t{gfp} << 40 | uint64_t{order} << 32 | type << 24));
    }
  };
  bool live_;
  uint64_t page_size_;
  FlatHashMap<uint64_t, SlabSite> by_ptr_, by_call_site_;
  SlabSummary slab_;
  // Hashed as they come; put in perf's tree order (by page, or by call site, order, migrate
  // type and GFP flags) when a table is asked for.
  FlatHashMap<uint64_t, PageSite> live_pages_;  // by page: what a free finds
  FlatHashMap<PageKey, PageSite, PageKeyHash> page_allocs_, page_callers_;
  PageSummary pages_;
};

}  // namespace sonde::analysis
