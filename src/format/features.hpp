#pragma once
// The header features of a perf.data file: the values (FeatureSet), their encoding into the
// section bytes perf expects, and the decoding of what a file holds. File mode and pipe mode
// share the byte layout of each feature; only the framing differs (a section table after the
// data, or HEADER_FEATURE records before it).
#include <linux/perf_event.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/bytes.hpp"
#include "base/error.hpp"
#include "format/perf_format.hpp"

namespace sonde::perfdata {

struct NrCpus {
  uint32_t available = 0;  // perf: cpu__max_present_cpu(), written first
  uint32_t online = 0;
};

struct CpuTopology {
  std::vector<std::string> package_cpus;  // one list per socket ("0-3"): perf's "sibling sockets"
  std::vector<std::string> core_cpus;     // one list per core ("0,4"): "sibling threads"
  struct Cpu {
    uint32_t core_id = 0;
    uint32_t socket_id = 0;
    uint32_t die_id = 0;
  };
  std::vector<Cpu> cpus;              // indexed by CPU number, NrCpus::available entries
  std::vector<std::string> die_cpus;  // empty when the machine has no die level in sysfs
};

// NUMA_TOPOLOGY: each node's memory (kB) and CPU list.
struct NumaNode {
  uint32_t node = 0;
  uint64_t mem_total_kb = 0, mem_free_kb = 0;
  std::string cpus;  // "0-1"
};

// CACHE: one entry per distinct cache (level, type "Data", size "48K", shared by CPUs "0-1").
struct CpuCache {
  uint32_t level = 0, line_size = 0, sets = 0, ways = 0;
  std::string type, size, cpus;
};

// MEM_TOPOLOGY: memory blocks of `block_size` bytes, as a set of block numbers per node.
struct MemoryTopology {
  uint64_t block_size = 0;
  struct Node {
    uint64_t node = 0;
    uint64_t size = 0;             // as written (perf prints the size from the blocks)
    std::vector<uint64_t> blocks;  // the bitmap's words
    uint64_t block_count = 0;      // its size in bits
  };
  std::vector<Node> nodes;
};

// One event of the EVENT_DESC feature: the attr, its display name and its sample ids.
struct EventDesc {
  perf_event_attr attr{};
  std::string name;
  std::vector<uint64_t> ids;
};

// One entry of the BUILD_ID feature.
struct BuildIdEntry {
  int32_t pid = -1;                          // -1: the host machine, as perf writes for every DSO
  uint16_t cpumode = PERF_RECORD_MISC_USER;  // PERF_RECORD_MISC_KERNEL for the kernel and modules
  std::vector<uint8_t> build_id;             // up to 20 bytes
  std::string filename;
};

struct SampleTime {
  uint64_t first = 0;
  uint64_t last = 0;
};

struct ClockData {
  uint32_t clockid = 0;
  uint64_t tod_ns = 0;      // wall-clock time at the reference point
  uint64_t clockid_ns = 0;  // the sampling clock at the same point
};

// What the header says about the recording. Every field is optional: finalize writes the
// features that are set, the reader sets what the file holds.
// One event group (GROUP_DESC): its name ("{anon_group}" when it has none), the index of its
// leader among the file's events, and how many events it holds, the leader included.
struct GroupDesc {
  std::string name;
  uint32_t leader = 0;
  uint32_t members = 0;
};

struct FeatureSet {
  std::optional<std::string> hostname, os_release, version, arch, cpu_desc, cpuid;
  std::optional<NrCpus> nr_cpus;
  std::optional<uint64_t> total_mem_kb;             // perf's TOTAL_MEM is MemTotal in kB despite the docs
  std::optional<std::vector<std::string>> cmdline;  // argv, the binary's path first
  std::optional<std::vector<EventDesc>> event_desc;
  std::optional<CpuTopology> cpu_topology;
  // Read only (sonde does not write them): printed in full by -I/--show-info.
  std::optional<std::vector<NumaNode>> numa_nodes;
  std::optional<std::vector<CpuCache>> caches;
  std::optional<MemoryTopology> memory_topology;
  std::optional<std::vector<BuildIdEntry>> build_ids;
  // Raw tracing data (perf's tracing_data blob: formats, kallsyms, printk strings), supplied by
  // the caller when writing. The reader leaves this empty and hands out a view instead
  // (PerfDataReader::tracing_data), since the blob can be megabytes.
  std::optional<std::string> tracing_data;
  std::optional<std::vector<std::pair<uint32_t, std::string>>> pmu_mappings;  // {type, name}
  std::optional<SampleTime> sample_time;
  std::optional<std::vector<GroupDesc>> groups;
  std::optional<uint64_t> clockid_res_ns;
  std::optional<ClockData> clock_data;
  std::optional<CompressedFeature> compressed;
};

// The encoded sections, keyed by feature id, in feature order (the order perf lays them out).
using FeatureSections = std::map<int, std::string>;

// Encodes every set feature. `pipe_mode` leaves out what perf never sends as HEADER_FEATURE
// records (TRACING_DATA and BUILD_ID travel as their own records in a pipe).
FeatureSections encode_features(const FeatureSet& features, bool pipe_mode);

// Decodes one feature section into `out`. Unknown or undecoded features are left alone; a
// section that does not parse is an error naming the feature (callers make it a warning: a bad
// feature does not make the samples unreadable).
Result<void> decode_feature(int feature, Bytes section, FeatureSet& out);

// The build-id entries of a BUILD_ID section or a run of HEADER_BUILD_ID records.
Result<std::vector<BuildIdEntry>> decode_build_ids(Bytes section);
// One entry as perf lays it out (36-byte header, name padded to 64).
void encode_build_id(const BuildIdEntry& entry, uint32_t record_type, ByteWriter& out);

}  // namespace sonde::perfdata
