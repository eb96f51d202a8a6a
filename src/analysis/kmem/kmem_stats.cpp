#include "analysis/kmem/kmem_stats.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace sonde::analysis {

namespace {

template <typename Key>
Result<std::vector<Key>> parse_keys(std::string_view text,
                                    std::initializer_list<std::pair<std::string_view, Key>> known,
                                    std::string_view what) {
  std::vector<Key> keys;
  for (size_t start = 0; start <= text.size();) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view word = text.substr(start, comma - start);
    auto found =
        std::find_if(known.begin(), known.end(), [&](const auto& entry) { return entry.first == word; });
    if (found == known.end()) {
      std::string names;
      for (const auto& entry : known) names += (names.empty() ? "" : ", ") + std::string(entry.first);
      return failf("unknown {} --sort key '{}'; give {}", what, word, names);
    }
    keys.push_back(found->second);
    start = comma + 1;
  }
  return keys;
}

template <typename T>
int compare(T a, T b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

int compare_slab(const SlabSite& a, const SlabSite& b, SlabSortKey key) {
  switch (key) {
    case SlabSortKey::ptr:
      return compare(a.ptr, b.ptr);
    case SlabSortKey::callsite:
      return compare(a.call_site, b.call_site);
    case SlabSortKey::hit:
      return compare(a.hit, b.hit);
    case SlabSortKey::bytes:
      return compare(a.bytes_alloc, b.bytes_alloc);
    case SlabSortKey::frag:
      return compare(fragmentation(a.bytes_req, a.bytes_alloc), fragmentation(b.bytes_req, b.bytes_alloc));
    case SlabSortKey::pingpong:
      return compare(a.pingpong, b.pingpong);
  }
  return 0;
}

int compare_page(const PageSite& a, const PageSite& b, PageSortKey key) {
  switch (key) {
    case PageSortKey::page:
      return compare(a.page, b.page);
    case PageSortKey::callsite:
      return compare(a.callsite, b.callsite);
    case PageSortKey::hit:
      return compare(a.nr_alloc, b.nr_alloc);
    case PageSortKey::bytes:
      return compare(a.alloc_bytes, b.alloc_bytes);
    case PageSortKey::order:
      return compare(a.order, b.order);
    case PageSortKey::migtype:
      return compare(a.migrate_type, b.migrate_type);
    case PageSortKey::gfp:
      return compare(a.gfp_flags, b.gfp_flags);
  }
  return 0;
}

// perf re-inserts each entry, in its tree's order, into a tree where the larger by the keys goes
// left and ties right: a stable sort, largest first.
template <typename Site, typename Key, typename Compare>
void sort_largest_first(std::vector<Site>& sites, const std::vector<Key>& keys, Compare compare_by) {
  std::stable_sort(sites.begin(), sites.end(), [&](const Site& a, const Site& b) {
    for (Key key : keys)
      if (int order = compare_by(a, b, key); order != 0) return order > 0;
    return false;
  });
}

std::vector<SlabSite> sorted_slab(const FlatHashMap<uint64_t, SlabSite>& table, bool by_ptr,
                                  const std::vector<SlabSortKey>& keys) {
  std::vector<SlabSite> sites;
  sites.reserve(table.size());
  table.for_each([&](uint64_t, const SlabSite& site) { sites.push_back(site); });
  std::sort(sites.begin(), sites.end(), [by_ptr](const SlabSite& a, const SlabSite& b) {
    return by_ptr ? a.ptr < b.ptr : a.call_site < b.call_site;
  });
  sort_largest_first(sites, keys, compare_slab);
  return sites;
}

}  // namespace

Result<std::vector<SlabSortKey>> parse_slab_sort_keys(std::string_view text) {
  return parse_keys<SlabSortKey>(text,
                                 {{"ptr", SlabSortKey::ptr},
                                  {"callsite", SlabSortKey::callsite},
                                  {"hit", SlabSortKey::hit},
                                  {"bytes", SlabSortKey::bytes},
                                  {"frag", SlabSortKey::frag},
                                  {"pingpong", SlabSortKey::pingpong}},
                                 "slab");
}

Result<std::vector<PageSortKey>> parse_page_sort_keys(std::string_view text) {
  return parse_keys<PageSortKey>(text,
                                 {{"page", PageSortKey::page},
                                  {"callsite", PageSortKey::callsite},
                                  {"hit", PageSortKey::hit},
                                  {"bytes", PageSortKey::bytes},
                                  {"order", PageSortKey::order},
                                  {"migtype", PageSortKey::migtype},
                                  {"gfp", PageSortKey::gfp}},
                                 "page");
}

double fragmentation(uint64_t requested, uint64_t allocated) {
  if (allocated == 0) return 0.0;
  return 100.0 - (100.0 * static_cast<double>(requested) / static_cast<double>(allocated));
}

void KmemStats::slab_alloc(uint64_t call_site, uint64_t ptr, int32_t bytes_req, int32_t bytes_alloc,
                           uint32_t cpu, bool cross_node) {
  // perf reads the sizes as int and adds them to 64-bit totals.
  const auto req = static_cast<uint64_t>(static_cast<int64_t>(bytes_req));
  const auto alloc = static_cast<uint64_t>(static_cast<int64_t>(bytes_alloc));
  SlabSite& by_ptr = by_ptr_[ptr];
  by_ptr.ptr = ptr;
  ++by_ptr.hit;
  by_ptr.bytes_req += req;
  by_ptr.bytes_alloc += alloc;
  by_ptr.call_site = call_site;
  by_ptr.alloc_cpu = static_cast<int16_t>(cpu);
  by_ptr.last_alloc = alloc;

  SlabSite& by_site = by_call_site_[call_site];
  by_site.call_site = call_site;
  ++by_site.hit;
  by_site.bytes_req += req;
  by_site.bytes_alloc += alloc;

  slab_.requested += req;
  slab_.allocated += alloc;
  ++slab_.allocs;
  if (cross_node) ++slab_.cross_node_allocs;
}

void KmemStats::slab_free(uint64_t ptr, uint32_t cpu) {
  SlabSite* found = by_ptr_.find(ptr);
  if (found == nullptr) return;
  SlabSite& site = *found;
  slab_.freed += site.last_alloc;
  if (static_cast<int16_t>(cpu) != site.alloc_cpu) {
    ++site.pingpong;
    if (SlabSite* caller = by_call_site_.find(site.call_site)) ++caller->pingpong;
  }
  site.alloc_cpu = -1;
}

void KmemStats::page_alloc(uint64_t page, bool valid, uint32_t order, uint32_t gfp_flags,
                           uint32_t migrate_type, uint64_t callsite) {
  const uint64_t bytes = page_size_ << order;
  ++pages_.allocs;
  pages_.alloc_bytes += bytes;
  if (!valid) {
    ++pages_.failures;
    pages_.failure_bytes += bytes;
    return;
  }
  auto fill = [&](PageSite& site) {
    site.order = order;
    site.gfp_flags = gfp_flags;
    site.migrate_type = migrate_type;
    ++site.nr_alloc;
    site.alloc_bytes += bytes;
  };
  PageSite& live = live_pages_[page];
  live.page = page;
  fill(live);
  live.callsite = callsite;
  if (!live_) {
    PageSite& alloc = page_allocs_[PageKey{page, order, migrate_type, gfp_flags}];
    alloc.page = page;
    fill(alloc);
    alloc.callsite = callsite;
  }
  PageSite& caller = page_callers_[PageKey{callsite, order, migrate_type, gfp_flags}];
  caller.callsite = callsite;
  fill(caller);
  if (order < kPageOrders && migrate_type < kMigrateTypes) ++pages_.orders[order][migrate_type];
}

void KmemStats::page_free(uint64_t page, uint32_t order) {
  const uint64_t bytes = page_size_ << order;
  ++pages_.frees;
  pages_.free_bytes += bytes;
  const PageSite* found = live_pages_.find(page);
  if (found == nullptr) {
    ++pages_.unmatched_frees;
    pages_.unmatched_free_bytes += bytes;
    return;
  }
  const PageSite allocated = *found;
  live_pages_.erase(page);
  if (live_) {
    if (order < kPageOrders && allocated.migrate_type < kMigrateTypes)
      --pages_.orders[order][allocated.migrate_type];
  } else if (PageSite* alloc =
                 page_allocs_.find(PageKey{page, order, allocated.migrate_type, allocated.gfp_flags})) {
    ++alloc->nr_free;
    alloc->free_bytes += bytes;
  }
  const PageKey caller_key{allocated.callsite, order, allocated.migrate_type, allocated.gfp_flags};
  PageSite* caller = page_callers_.find(caller_key);
  if (caller == nullptr) return;
  ++caller->nr_free;
  caller->free_bytes += bytes;
  if (live_) {
    --caller->nr_alloc;
    caller->alloc_bytes -= bytes;
    if (caller->nr_alloc == 0) page_callers_.erase(caller_key);
  }
}

std::vector<SlabSite> KmemStats::slab_by_caller(const std::vector<SlabSortKey>& keys) const {
  return sorted_slab(by_call_site_, false, keys);
}

std::vector<SlabSite> KmemStats::slab_by_pointer(const std::vector<SlabSortKey>& keys) const {
  return sorted_slab(by_ptr_, true, keys);
}

std::vector<PageSite> KmemStats::pages_by_caller(const std::vector<PageSortKey>& keys) const {
  std::vector<PageSite> sites;
  sites.reserve(page_callers_.size());
  page_callers_.for_each([&](const PageKey&, const PageSite& site) { sites.push_back(site); });
  std::sort(sites.begin(), sites.end(), [](const PageSite& a, const PageSite& b) {
    return std::tie(a.callsite, a.order, a.migrate_type, a.gfp_flags) <
           std::tie(b.callsite, b.order, b.migrate_type, b.gfp_flags);
  });
  sort_largest_first(sites, keys, compare_page);
  return sites;
}

std::vector<PageSite> KmemStats::pages_by_page(const std::vector<PageSortKey>& keys) const {
  std::vector<PageSite> sites;
  if (live_) {
    // perf's live tree keeps the highest page first.
    sites.reserve(live_pages_.size());
    live_pages_.for_each([&](uint64_t, const PageSite& site) { sites.push_back(site); });
    std::sort(sites.begin(), sites.end(),
              [](const PageSite& a, const PageSite& b) { return a.page > b.page; });
  } else {
    sites.reserve(page_allocs_.size());
    page_allocs_.for_each([&](const PageKey&, const PageSite& site) { sites.push_back(site); });
    std::sort(sites.begin(), sites.end(), [](const PageSite& a, const PageSite& b) {
      return std::tie(a.page, a.order, a.migrate_type, a.gfp_flags) <
             std::tie(b.page, b.order, b.migrate_type, b.gfp_flags);
    });
  }
  sort_largest_first(sites, keys, compare_page);
  return sites;
}

}  // namespace sonde::analysis
