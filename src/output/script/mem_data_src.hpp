#pragma once
// A sample's PERF_SAMPLE_DATA_SRC (struct perf_mem_data_src) in perf's words, as perf script's
// mem info and its Python dicts' datasrc_decode give it: "|OP LOAD|LVL L1 hit|SNP None|TLB L1
// or L2 hit|LCK No|BLK  N/A".
#include <cstdint>
#include <string>

namespace sonde::output {

// Samples without DATA_SRC carry perf's PERF_MEM_DATA_SRC_NONE (every part N/A).
constexpr uint64_t kMemDataSourceNone = 0x5080021;

std::string mem_data_src_text(uint64_t data_src);

}  // namespace sonde::output
