#pragma once
// perf's own records in a data section (types 64 and up) that carry facts rather than events:
// the id index, the thread and CPU maps, event updates. Decoded into small structs; perf prints
// them in `perf script -D` / `perf report -D`.
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "format/record_view.hpp"

namespace sonde::perfdata {

// PERF_RECORD_ID_INDEX: which event index, CPU and thread each sample id belongs to.
struct IdIndexRecord {
  struct Entry {
    uint64_t id = 0, idx = 0;
    int64_t cpu = 0, tid = 0;
    bool has_machine = false;  // newer perfs add the guest machine's pid and vcpu
    int64_t machine_pid = 0;
    uint64_t vcpu = 0;
  };
  std::vector<Entry> entries;
  static Result<IdIndexRecord> decode(const RecordView& record);
};

// PERF_RECORD_THREAD_MAP: the threads a recording was opened on (their pids).
struct ThreadMapRecord {
  std::vector<int32_t> pids;
  static Result<ThreadMapRecord> decode(const RecordView& record);
};

// PERF_RECORD_CPU_MAP: the recording's CPUs, from any of its three encodings (a list, a
// bitmask, or a range; -1 stands for "any CPU").
struct CpuMapRecord {
  std::vector<int32_t> cpus;
  static Result<CpuMapRecord> decode(const RecordView& record);
};

// PERF_RECORD_EVENT_UPDATE: a later fact about event `id` (its name, unit, scale or CPUs).
struct EventUpdateRecord {
  enum Type : uint64_t { kUnit = 0, kScale = 1, kName = 2, kCpus = 3 };
  uint64_t type = 0;
  uint64_t id = 0;
  std::string_view text;      // kUnit, kName
  double scale = 0;           // kScale
  std::vector<int32_t> cpus;  // kCpus
  static Result<EventUpdateRecord> decode(const RecordView& record);
};

// perf's CPU list text: "0-3,5" (ranges of consecutive CPUs joined by commas).
std::string cpu_list_text(const std::vector<int32_t>& cpus);

}  // namespace sonde::perfdata
