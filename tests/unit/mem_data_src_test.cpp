// A sample's data source in perf's words (script -s's datasrc_decode).
#include "output/script/mem_data_src.hpp"

#include <gtest/gtest.h>

using sonde::output::mem_data_src_text;

namespace {

// struct perf_mem_data_src's fields at their places.
uint64_t data_src(uint64_t op, uint64_t level, uint64_t snoop, uint64_t lock, uint64_t tlb,
                  uint64_t level_number = 0, uint64_t remote = 0, uint64_t snoopx = 0, uint64_t blocked = 0,
                  uint64_t hops = 0) {
  return op | level << 5 | snoop << 19 | lock << 24 | tlb << 26 | level_number << 33 | remote << 37 |
         snoopx << 38 | blocked << 40 | hops << 43;
}

}  // namespace

TEST(MemDataSrc, NoneIsNotAvailableEverywhere) {
  EXPECT_EQ(mem_data_src_text(sonde::output::kMemDataSourceNone),
            "|OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A");
}

TEST(MemDataSrc, LoadHittingL1) {
  // LOAD; L1 hit; snoop None; not locked; L1 or L2 TLB hit.
  EXPECT_EQ(mem_data_src_text(data_src(0x2, 0x8 | 0x2, 0x2, 0x0, 0x8 | 0x10 | 0x2)),
            "|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A");
}

TEST(MemDataSrc, StoreMissingToRemoteRamWithLevelNumberAndBlock) {
  EXPECT_EQ(mem_data_src_text(data_src(0x4, 0x100 | 0x4, 0x8, 0x2, 0x20 | 0x4, 0x0d, 0, 0x1, 0x2)),
            "|OP STORE|LVL Remote RAM (1 hop) or RAM miss|SNP Miss or Fwd|TLB Walker miss|LCK Yes|BLK  Data");
}

TEST(MemDataSrc, HopsNameTheRemoteLevel) {
  EXPECT_EQ(mem_data_src_text(data_src(0x2, 0x2, 0x1, 0x1, 0x1, 0x03, 1, 0, 0x4, 2)),
            "|OP LOAD|LVL Remote node, same socket L3 hit|SNP N/A|TLB N/A|LCK N/A|BLK  Addr");
}
