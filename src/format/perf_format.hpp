#pragma once
// The on-disk layout of perf.data (the PERFILE2 format) as perf 6.1 writes and reads it.
// Everything is native-endian: files from a machine of the other endianness are refused, not
// byte-swapped (perf's magic tells the two apart, so the reader can say so).
// References: tools/perf/Documentation/perf.data-file-format.txt and include/uapi/linux/perf_event.h.
#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sonde::perfdata {

// "PERFILE2" read as a little-endian u64; a file written big-endian reads as kPerfMagicSwapped.
inline constexpr uint64_t kPerfMagic = 0x32454c4946524550ULL;
inline constexpr uint64_t kPerfMagicSwapped = 0x50455246494c4532ULL;

// A region of the file: perf's struct perf_file_section.
struct FileSection {
  uint64_t offset = 0;
  uint64_t size = 0;
};
static_assert(sizeof(FileSection) == 16);

// 256 feature bits; bit N set means feature section N is present after the data section.
inline constexpr int kFeatureBits = 256;

// The file header at offset 0 (perf's struct perf_file_header).
struct FileHeader {
  uint64_t magic = kPerfMagic;
  uint64_t size = sizeof(FileHeader);  // the header's own size: 104, or 16 in pipe mode
  uint64_t attr_size = 0;              // size of one attrs-section entry (attr + ids section)
  FileSection attrs;
  FileSection data;
  FileSection event_types;  // obsolete; perf writes zeros
  uint64_t features[kFeatureBits / 64] = {};

  bool has_feature(int feature) const {
    return feature >= 0 && feature < kFeatureBits && (features[feature / 64] >> (feature % 64)) & 1;
  }
  void set_feature(int feature) { features[feature / 64] |= uint64_t{1} << (feature % 64); }
};
static_assert(sizeof(FileHeader) == 104);

// The header of a stream written to a pipe: no sections, everything else arrives as records.
struct PipeHeader {
  uint64_t magic = kPerfMagic;
  uint64_t size = sizeof(PipeHeader);
};
static_assert(sizeof(PipeHeader) == 16);

// One entry of the attrs section: the attr as perf knows it, then where its ids are.
// attr_size in the header tells how big the entries of a given file really are.
struct FileAttr {
  perf_event_attr attr;
  FileSection ids;
};
static_assert(sizeof(perf_event_attr) == PERF_ATTR_SIZE_VER7, "perf 6.1 writes 128-byte attrs");
static_assert(sizeof(FileAttr) == 144);

// Header feature ids (perf's HEADER_* in util/header.h); the bit number in FileHeader::features.
enum Feature : int {
  HEADER_RESERVED = 0,
  HEADER_TRACING_DATA = 1,
  HEADER_BUILD_ID = 2,
  HEADER_HOSTNAME = 3,
  HEADER_OSRELEASE = 4,
  HEADER_VERSION = 5,
  HEADER_ARCH = 6,
  HEADER_NRCPUS = 7,
  HEADER_CPUDESC = 8,
  HEADER_CPUID = 9,
  HEADER_TOTAL_MEM = 10,
  HEADER_CMDLINE = 11,
  HEADER_EVENT_DESC = 12,
  HEADER_CPU_TOPOLOGY = 13,
  HEADER_NUMA_TOPOLOGY = 14,
  HEADER_BRANCH_STACK = 15,
  HEADER_PMU_MAPPINGS = 16,
  HEADER_GROUP_DESC = 17,
  HEADER_AUXTRACE = 18,
  HEADER_STAT = 19,
  HEADER_CACHE = 20,
  HEADER_SAMPLE_TIME = 21,
  HEADER_MEM_TOPOLOGY = 22,
  HEADER_CLOCKID = 23,
  HEADER_DIR_FORMAT = 24,
  HEADER_BPF_PROG_INFO = 25,
  HEADER_BPF_BTF = 26,
  HEADER_COMPRESSED = 27,
  HEADER_CPU_PMU_CAPS = 28,
  HEADER_CLOCK_DATA = 29,
  HEADER_HYBRID_TOPOLOGY = 30,
  HEADER_PMU_CAPS = 31,
  HEADER_LAST_FEATURE = 32,  // in pipe mode a HEADER_FEATURE record with this id ends the features
};

// The feature's name as `perf report --header-only` spells it in "missing features".
std::string_view feature_name(int feature);

// Record types perf itself writes into the data stream (util/event.h: PERF_RECORD_USER_TYPE_START).
enum UserRecordType : uint32_t {
  PERF_RECORD_USER_TYPE_START = 64,
  PERF_RECORD_HEADER_ATTR = 64,
  PERF_RECORD_HEADER_EVENT_TYPE = 65,  // deprecated
  PERF_RECORD_HEADER_TRACING_DATA = 66,
  PERF_RECORD_HEADER_BUILD_ID = 67,
  PERF_RECORD_FINISHED_ROUND = 68,
  PERF_RECORD_ID_INDEX = 69,
  PERF_RECORD_AUXTRACE_INFO = 70,
  PERF_RECORD_AUXTRACE = 71,
  PERF_RECORD_AUXTRACE_ERROR = 72,
  PERF_RECORD_THREAD_MAP = 73,
  PERF_RECORD_CPU_MAP = 74,
  PERF_RECORD_STAT_CONFIG = 75,
  PERF_RECORD_STAT = 76,
  PERF_RECORD_STAT_ROUND = 77,
  PERF_RECORD_EVENT_UPDATE = 78,
  PERF_RECORD_TIME_CONV = 79,
  PERF_RECORD_HEADER_FEATURE = 80,
  PERF_RECORD_COMPRESSED = 81,
  PERF_RECORD_FINISHED_INIT = 82,
  PERF_RECORD_COMPRESSED2 = 83,  // newer perf: a data_size field before the zstd bytes
};

// The record type's name as perf script -D prints it ("MMAP2", "HEADER_ATTR"...); "UNKNOWN" else.
std::string_view record_type_name(uint32_t type);
// Whether some perf up to now writes records of this type: the kernel's (MMAP to
// AUX_OUTPUT_HW_ID) and perf's own (HEADER_ATTR to COMPRESSED2), the ones record_type_name names.
inline bool is_known_record_type(uint32_t type) {
  return (type >= 1 && type <= 21) ||
         (type >= PERF_RECORD_USER_TYPE_START && type <= PERF_RECORD_COMPRESSED2);
}

// header.misc bit on build-id entries that says build_id[20] holds the real build-id length.
inline constexpr uint16_t PERF_RECORD_MISC_BUILD_ID_SIZE = 1u << 15;

// A build-id entry of the BUILD_ID feature and of PERF_RECORD_HEADER_BUILD_ID records
// (perf's struct perf_record_header_build_id): 36 bytes, then the file name padded to 64.
struct BuildIdEntryHeader {
  perf_event_header header;
  int32_t pid;
  uint8_t build_id[20];
  uint8_t build_id_size;  // valid when header.misc has PERF_RECORD_MISC_BUILD_ID_SIZE
  uint8_t reserved1;
  uint16_t reserved2;
};
static_assert(sizeof(BuildIdEntryHeader) == 36);

// PERF_RECORD_HEADER_FEATURE: the feature id, then the section's bytes as in a file.
struct FeatureRecordHeader {
  perf_event_header header;
  uint64_t feat_id;
};
static_assert(sizeof(FeatureRecordHeader) == 16);

// PERF_RECORD_HEADER_TRACING_DATA: `size` bytes of tracing data follow the 12-byte record,
// outside header.size (the blob can exceed the 64 KiB a record can hold).
struct TracingDataRecord {
  perf_event_header header;
  uint32_t size;
};
static_assert(sizeof(TracingDataRecord) == 12);

// HEADER_COMPRESSED feature contents (perf's env.comp_*, five u32s).
struct CompressedFeature {
  uint32_t version = 1;
  uint32_t type = 1;  // 1: zstd
  uint32_t level = 1;
  uint32_t ratio = 0;
  uint32_t mmap_len = 0;
};
static_assert(sizeof(CompressedFeature) == 20);

// The largest record a perf_event_header can describe.
inline constexpr size_t kMaxRecordSize = 0xffff;

}  // namespace sonde::perfdata
