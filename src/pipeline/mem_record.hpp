#pragma once
// perf mem record's and perf c2c record's event lists for this machine's memory-sampling PMU:
// Intel's PEBS load latency (cpu/mem-loads,ldlat=N/P and cpu/mem-stores/P), AMD's IBS (ibs_op//)
// or Arm's SPE (arm_spe_0 with its load and store filters). Without one the recording is refused
// with a line naming what is missing; the report side reads files made where it exists.
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde::pipeline {

enum class MemTool { mem, c2c };

struct MemRecordRequest {
  MemTool tool = MemTool::mem;
  bool loads = true, stores = true;  // mem -t load,store
  unsigned ldlat = 30;               // --ldlat: the load latency threshold in cycles
  bool phys_data = false;            // mem -p
  bool data_page_size = false;       // mem --data-page-size
  bool all_user = false, all_kernel = false;
};

// The `record` arguments before the user's (perf's own: -W, -d, the events...).
Result<std::vector<std::string>> mem_record_arguments(const MemRecordRequest& request);

}  // namespace sonde::pipeline
