#pragma once
// What sonde record writes besides the kernel's own records: the synthesized side-band at the
// start (kernel and module maps, the tasks that existed before), and the DSOs mapped during the
// recording whose build-ids go in the file's BUILD_ID feature.
#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "capture/build_ids.hpp"
#include "capture/sampling_session.hpp"

namespace sonde::capture {

// The side-band records for a recording of `target` (whose tids hold the workload's pid when a
// command is run), in kernel format, concatenated. `attr` is the first event's; with
// `data_mmaps` (dwarf call graphs) readable data mappings are written too, as perf does.
Result<std::string> synthesize_record_sideband(const perf_event_attr& attr, const SamplingTarget& target,
                                               bool data_mmaps);

// Collects the files mapped by the recorded tasks from MMAP/MMAP2 records as they stream by, so
// their build-ids can be read once at the end (BuildIdCache::entries) without re-reading samples.
class DsoCollector {
 public:
  void observe(const void* record, size_t size);
  // The kernel and every file seen.
  std::vector<DsoRef> dsos() const;

 private:
  std::set<std::string> files_;
};

}  // namespace sonde::capture
