// perf kmem stat's bookkeeping: frees matched to allocations, ping-pong, --live, and perf's
// table order (largest first by the keys, ties in the key's order).
#include "analysis/kmem/kmem_stats.hpp"

#include <gtest/gtest.h>

#include "analysis/kmem/gfp_flags.hpp"

using namespace sonde::analysis;

TEST(KmemStats, FreesOnAnotherCpuArePingPong) {
  KmemStats stats(false, 4096);
  stats.slab_alloc(0x100, 0xa000, 96, 128, 0, false);
  stats.slab_alloc(0x100, 0xb000, 96, 128, 1, true);
  stats.slab_free(0xa000, 1);  // freed on CPU 1: ping-pong
  stats.slab_free(0xb000, 1);  // same CPU
  stats.slab_free(0xc000, 0);  // never seen: not counted
  auto callers = stats.slab_by_caller({SlabSortKey::frag});
  ASSERT_EQ(callers.size(), 1u);
  EXPECT_EQ(callers[0].hit, 2u);
  EXPECT_EQ(callers[0].pingpong, 1u);
  EXPECT_EQ(callers[0].bytes_alloc, 256u);
  EXPECT_EQ(stats.slab_summary().freed, 256u);
  EXPECT_EQ(stats.slab_summary().cross_node_allocs, 1u);
  EXPECT_DOUBLE_EQ(fragmentation(192, 256), 25.0);
}

TEST(KmemStats, TablesAreLargestFirstWithTiesInKeyOrder) {
  KmemStats stats(false, 4096);
  stats.slab_alloc(0x300, 0x1, 8, 8, 0, false);
  stats.slab_alloc(0x100, 0x2, 8, 8, 0, false);
  stats.slab_alloc(0x200, 0x3, 64, 64, 0, false);
  auto by_bytes = stats.slab_by_caller({SlabSortKey::bytes});
  ASSERT_EQ(by_bytes.size(), 3u);
  EXPECT_EQ(by_bytes[0].call_site, 0x200u);
  EXPECT_EQ(by_bytes[1].call_site, 0x100u);  // a tie keeps the call sites' ascending order
  EXPECT_EQ(by_bytes[2].call_site, 0x300u);
}

TEST(KmemStats, LivePagesAreTheUnfreedOnes) {
  KmemStats live(true, 4096);
  live.page_alloc(10, true, 0, 0xcc0, 0, 0x500);
  live.page_alloc(11, true, 1, 0xcc0, 0, 0x500);
  live.page_alloc(12, false, 0, 0xcc0, 0, 0x500);  // a failed allocation
  live.page_free(10, 0);
  live.page_free(99, 0);  // a page not seen allocated
  auto pages = live.pages_by_page({PageSortKey::bytes});
  ASSERT_EQ(pages.size(), 1u);
  EXPECT_EQ(pages[0].page, 11u);
  EXPECT_EQ(pages[0].alloc_bytes, 8192u);
  auto callers = live.pages_by_caller({PageSortKey::bytes});
  ASSERT_EQ(callers.size(), 1u);  // the order-0 site's only page was freed
  EXPECT_EQ(callers[0].order, 1u);
  const PageSummary& summary = live.page_summary();
  EXPECT_EQ(summary.allocs, 3u);
  EXPECT_EQ(summary.failures, 1u);
  EXPECT_EQ(summary.unmatched_frees, 1u);
  EXPECT_EQ(summary.orders[0][0], 0);
  EXPECT_EQ(summary.orders[1][0], 1);
}

TEST(KmemStats, SortKeysAreChecked) {
  EXPECT_TRUE(parse_slab_sort_keys("frag,hit,bytes"));
  auto bad = parse_page_sort_keys("bytes,size");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "unknown page --sort key 'size'; give page, callsite, hit, bytes, order, migtype, gfp");
}

TEST(GfpFlags, CompactFormAndPrintedWord) {
  EXPECT_EQ(compact_gfp_flags("GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP"), "KAC|Z|C");
  EXPECT_EQ(compact_gfp_flags("GFP_NOWAIT|__GFP_UNKNOWN"), "NW");
  EXPECT_EQ(gfp_flags_word("page=0x1 pfn=0x1 order=0 migratetype=0 gfp_flags=GFP_KERNEL|__GFP_ZERO"),
            "GFP_KERNEL|__GFP_ZERO");
  EXPECT_EQ(gfp_flags_word("call_site=foo ptr=0x1"), "");
}
