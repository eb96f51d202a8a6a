#pragma once
// The kernel's side-band records, one small struct each, decoded in place: strings are views
// into the record. The sample_id trailer (attr.sample_id_all) is decoded separately by
// decode_sample_id, since only the attr knows its size.
#include <linux/perf_event.h>

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "format/record_view.hpp"

namespace sonde::perfdata {

// PERF_RECORD_MMAP
struct MmapRecord {
  uint32_t pid = 0, tid = 0;
  uint64_t addr = 0, len = 0, pgoff = 0;
  std::string_view filename;
  static Result<MmapRecord> decode(const RecordView& record);
};

// PERF_RECORD_MMAP2
struct Mmap2Record {
  uint32_t pid = 0, tid = 0;
  uint64_t addr = 0, len = 0, pgoff = 0;
  // With PERF_RECORD_MISC_MMAP_BUILD_ID the device/inode fields hold a build-id instead.
  bool has_build_id = false;
  uint32_t maj = 0, min = 0;
  uint64_t ino = 0, ino_generation = 0;
  uint8_t build_id_size = 0;
  uint8_t build_id[20] = {};
  uint32_t prot = 0, flags = 0;
  std::string_view filename;
  static Result<Mmap2Record> decode(const RecordView& record);
};

// PERF_RECORD_COMM; `exec` is PERF_RECORD_MISC_COMM_EXEC (the name changed at exec, not prctl).
struct CommRecord {
  uint32_t pid = 0, tid = 0;
  std::string_view comm;
  bool exec = false;
  static Result<CommRecord> decode(const RecordView& record);
};

// PERF_RECORD_FORK and PERF_RECORD_EXIT share one layout.
struct ForkExitRecord {
  uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;
  uint64_t time = 0;
  // PERF_RECORD_MISC_FORK_EXEC: a FORK perf (or sonde) wrote for a task that already ran; the
  // child's maps come in MMAP records of its own, not from its parent.
  bool synthesized = false;
  static Result<ForkExitRecord> decode(const RecordView& record);
};

// PERF_RECORD_LOST: `lost` records dropped from the ring buffer of event `id`.
struct LostRecord {
  uint64_t id = 0, lost = 0;
  static Result<LostRecord> decode(const RecordView& record);
};

// PERF_RECORD_LOST_SAMPLES: samples the kernel could not write (perf also uses misc bits for
// its BPF-output and lost-by-filter variants).
struct LostSamplesRecord {
  uint64_t lost = 0;
  static Result<LostSamplesRecord> decode(const RecordView& record);
};

// PERF_RECORD_THROTTLE / PERF_RECORD_UNTHROTTLE
struct ThrottleRecord {
  bool throttle = true;
  uint64_t time = 0, id = 0, stream_id = 0;
  static Result<ThrottleRecord> decode(const RecordView& record);
};

// PERF_RECORD_SWITCH and PERF_RECORD_SWITCH_CPU_WIDE (which names the other task).
struct SwitchRecord {
  bool out = false;      // PERF_RECORD_MISC_SWITCH_OUT
  bool preempt = false;  // PERF_RECORD_MISC_SWITCH_OUT_PREEMPT: switched out while runnable
  bool cpu_wide = false;
  uint32_t next_prev_pid = 0, next_prev_tid = 0;  // CPU_WIDE only
  static Result<SwitchRecord> decode(const RecordView& record);
};

// PERF_RECORD_KSYMBOL: kernel code (a BPF program, a trampoline) registered or unregistered.
struct KsymbolRecord {
  uint64_t addr = 0;
  uint32_t len = 0;
  uint16_t ksym_type = 0, flags = 0;
  std::string_view name;
  static Result<KsymbolRecord> decode(const RecordView& record);
};

// PERF_RECORD_TEXT_POKE: kernel text changed in place (a static key, an ftrace or kprobe site):
// the old bytes at `addr`, then the new ones.
struct TextPokeRecord {
  uint64_t addr = 0;
  Bytes old_bytes, new_bytes;
  static Result<TextPokeRecord> decode(const RecordView& record);
};

// PERF_RECORD_BPF_EVENT: a BPF program loaded or unloaded.
struct BpfEventRecord {
  uint16_t type = 0, flags = 0;
  uint32_t id = 0;
  static Result<BpfEventRecord> decode(const RecordView& record);
};

// PERF_RECORD_NAMESPACES: a task's namespaces (record --namespaces), each as (dev, inode).
struct NamespacesRecord {
  uint32_t pid = 0, tid = 0;
  std::vector<std::pair<uint64_t, uint64_t>> links;
  static Result<NamespacesRecord> decode(const RecordView& record);
};

// PERF_RECORD_CGROUP: a cgroup's id and path (record --all-cgroups).
struct CgroupRecord {
  uint64_t id = 0;
  std::string_view path;
  static Result<CgroupRecord> decode(const RecordView& record);
};

}  // namespace sonde::perfdata
