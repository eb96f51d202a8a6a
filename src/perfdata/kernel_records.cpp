#include "perfdata/kernel_records.hpp"

#include <cstring>

#include "format/perf_format.hpp"

namespace sonde::perfdata {

namespace {

tl::unexpected<Error> too_short(const RecordView& record, size_t need) {
  return failf("{} record at offset {:#x} has size {}, below the {} bytes it needs",
               record_type_name(record.type()), record.offset, record.header.size,
               need + sizeof(perf_event_header));
}

tl::unexpected<Error> wrong_type(const RecordView& record, std::string_view expected) {
  return failf("record at offset {:#x} is {}, not {}", record.offset, record_type_name(record.type()),
               expected);
}

// The fixed part of a record, copied out so it may sit at any alignment.
template <typename Fixed>
Result<Fixed> fixed_part(const RecordView& record) {
  Bytes body = record.payload();
  if (body.size() < sizeof(Fixed)) return too_short(record, sizeof(Fixed));
  return load<Fixed>(body.data());
}

// A NUL-terminated string starting at `at` in the payload; the sample_id trailer follows it.
Result<std::string_view> string_at(const RecordView& record, size_t at, const char* field) {
  Bytes body = record.payload();
  const char* start = reinterpret_cast<const char*>(body.data()) + at;
  size_t room = body.size() - at;
  const void* nul = std::memchr(start, '\0', room);
  if (!nul)
    return failf("{} record at offset {:#x}: its {} has no terminating NUL", record_type_name(record.type()),
                 record.offset, field);
  return std::string_view(start, static_cast<size_t>(static_cast<const char*>(nul) - start));
}

struct MmapFixed {
  uint32_t pid, tid;
  uint64_t addr, len, pgoff;
};
struct Mmap2Fixed {
  uint32_t pid, tid;
  uint64_t addr, len, pgoff;
  union {
    struct {
      uint32_t maj, min;
      uint64_t ino, ino_generation;
    } dev;
    struct {
      uint8_t build_id_size;
      uint8_t reserved[3];
      uint8_t build_id[20];
    } bid;
  };
  uint32_t prot, flags;
};
static_assert(sizeof(Mmap2Fixed) == 64);
struct PidTid {
  uint32_t pid, tid;
};
struct ForkFixed {
  uint32_t pid, ppid, tid, ptid;
  uint64_t time;
};
struct ThrottleFixed {
  uint64_t time, id, stream_id;
};

}  // namespace

Result<MmapRecord> MmapRecord::decode(const RecordView& record) {
  if (record.type() != PERF_RECORD_MMAP) return wrong_type(record, "MMAP");
  auto fixed = fixed_part<MmapFixed>(record);
  if (!fixed) return tl::unexpected(fixed.error());
  auto name = string_at(record, sizeof(MmapFixed), "filename");
  if (!name) return tl::unexpected(name.error());
  return MmapRecord{fixed->pid, fixed->tid, fixed->addr, fixed->len, fixed->pgoff, *name};
}

Result<Mmap2Record> Mmap2Record::decode(const RecordView& record) {
  if (record.type() != PERF_RECORD_MMAP2) return wrong_type(record, "MMAP2");
  auto fixed = fixed_part<Mmap2Fixed>(record);
  if (!fixed) return tl::unexpected(fixed.error());
  auto name = string_at(record, sizeof(Mmap2Fixed), "filename");
  if (!name) return tl::unexpected(name.error());
  Mmap2Record r;
  r.pid = fixed->pid;
  r.tid = fixed->tid;
  r.addr = fixed->addr;
  r.len = fixed->len;
  r.pgoff = fixed->pgoff;
  r.has_build_id = record.misc() & PERF_RECORD_MISC_MMAP_BUILD_ID;
  if (r.has_build_id) {
    r.build_id_size = std::min<uint8_t>(fixed->bid.build_id_size, 20);
    std::memcpy(r.build_id, fixed->bid.build_id, sizeof r.build_id);
  } else {
    r.maj = fixed->dev.maj;
    r.min = fixed->dev.min;
    r.ino = fixed->dev.ino;
    r.ino_generation = fixed->dev.ino_generation;
  }
  r.prot = fixed->prot;
  r.flags = fixed->flags;
  r.filename = *name;
  return r;
}

Result<CommRecord> CommRecord::decode(const RecordView& record) {
  if (record.type() != PERF_RECORD_COMM) return wrong_type(record, "COMM");
  auto fixed = fixed_part<PidTid>(record);
  if (!fixed) return tl::unexpected(fixed.error());
  auto comm = string_at(record, sizeof(PidTid), "comm");
  if (!comm) return tl::unexpected(comm.error());
  return CommRecord{fixed->pid, fixed->tid, *comm, (record.misc() & PERF_RECORD_MISC_COMM_EXEC) != 0};
}

Result<ForkExitRecord> ForkExitRecord::decode(const RecordView& record) {
  if (record.type() != PERF_RECORD_FORK && record.type() != PERF_RECORD_EXIT)
    return wrong_type(record, "FORK or EXIT");
  auto fixed = fixed_part<ForkFixed>(record);
  if (!fixed) return tl::unexpected(fixed.error());
  return ForkExitRecord{fixed->pid,  fixed->ppid, fixed->tid,
                        fixed->ptid, fixed->time, (record.misc() & PERF_RECORD_MISC_FORK_EXEC) != 0};
}

Result<LostRecord> LostRecord::decode(const RecordView& record) {
  if (record.type() != PERF_RECORD_LOST) return wrong_type(record, "LOST");
  auto fixed = fixed_part<LostRecord>(record);  // {id, lost}: the same two u64s
  if (!fixed) return tl::unexpected(fixed.error());
  return *fixed;
}

Result<LostSamplesRecord> LostSamplesRecord::decode(const RecordView& record) {
  if (record.type() != PERF_RECORD_LOST_SAMPLES) return wrong_type(record, "LOST_SAMPLES");
  auto lost = fixed_part<uint64_t>(record);
  if (!lost) return tl::unexpected(lost.error());
  return LostSamplesRecord{*lost};
}

Result<ThrottleRecord> ThrottleRecord::decode(const RecordView& record) {
  if (record.type() != PERF_RECORD_THROTTLE && record.type() != PERF_RECORD_UNTHROTTLE)
    return wrong_type(record, "THROTTLE");
  auto fixed = fixed_part<ThrottleFixed>(record);
  if (!fixed) return tl::unexpected(fixed.error());
  return ThrottleRecord{record.type() == PERF_RECORD_THROTTLE, fixed->time, fixed->id, fixed->stream_id};
}

Result<SwitchRecord> SwitchRecord::decode(const RecordView& record) {
  if (record.type() != PERF_RECORD_SWITCH && record.type() != PERF_RECORD_SWITCH_CPU_WIDE)
    return wrong_type(record, "SWITCH");
  SwitchRecord r;
  r.out = record.misc() & PERF_RECORD_MISC_SWITCH_OUT;
  r.preempt = record.misc() & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
  r.cpu_wide = record.type() == PERF_RECORD_SWITCH_CPU_WIDE;
  if (r.cpu_wide) {
    auto fixed = fixed_part<PidTid>(record);
    if (!fixed) return tl::unexpected(fixed.error());
    r.next_prev_pid = fixed->pid;
    r.next_prev_tid = fixed->tid;
  }
  return r;
}

Result<KsymbolRecord> KsymbolRecord::decode(const RecordView& record) {
  if (record.type() != PERF_RECORD_KSYMBOL) return wrong_type(record, "KSYMBOL");
  struct Fixed {
    uint64_t addr;
    uint32_t len;
    uint16_t ksym_type, flags;
  };
  auto fixed = fixed_part<Fixed>(record);
  if (!fixed) return tl::unexpected(fixed.error());
  auto name = string_at(record, sizeof(Fixed), "name");
  if (!name) return tl::unexpected(name.error());
  return KsymbolRecord{fixed->addr, fixed->len, fixed->ksym_type, fixed->flags, *name};
}

Result<TextPokeRecord> TextPokeRecord::decode(const RecordView& record) {
  if (record.type() != PERF_RECORD_TEXT_POKE) return wrong_type(record, "TEXT_POKE");
  struct [[gnu::packed]] Fixed {  // the bytes follow at 12, unpadded
    uint64_t addr;
    uint16_t old_len, new_len;
  };
  auto fixed = fixed_part<Fixed>(record);
  if (!fixed) return tl::unexpected(fixed.error());
  size_t need = sizeof(Fixed) + fixed->old_len + fixed->new_len;
  Bytes body = record.payload();
  if (body.size() < need) return too_short(record, need);
  return TextPokeRecord{fixed->addr, body.subspan(sizeof(Fixed), fixed->old_len),
                        body.subspan(sizeof(Fixed) + fixed->old_len, fixed->new_len)};
}

Result<BpfEventRecord> BpfEventRecord::decode(const RecordView& record) {
  if (record.type() != PERF_RECORD_BPF_EVENT) return wrong_type(record, "BPF_EVENT");
  struct Fixed {
    uint16_t type, flags;
    uint32_t id;
  };
  auto fixed = fixed_part<Fixed>(record);
  if (!fixed) return tl::unexpected(fixed.error());
  return BpfEventRecord{fixed->type, fixed->flags, fixed->id};
}

Result<NamespacesRecord> NamespacesRecord::decode(const RecordView& record) {
  if (record.type() != PERF_RECORD_NAMESPACES) return wrong_type(record, "NAMESPACES");
  struct Fixed {
    uint32_t pid, tid;
    uint64_t nr;
  };
  auto fixed = fixed_part<Fixed>(record);
  if (!fixed) return tl::unexpected(fixed.error());
  NamespacesRecord out{fixed->pid, fixed->tid, {}};
  auto bytes = record.payload();
  size_t room = bytes.size() > sizeof(Fixed) ? (bytes.size() - sizeof(Fixed)) / 16 : 0;
  if (fixed->nr > room) return fail("NAMESPACES record: more namespaces than the record holds");
  for (uint64_t i = 0; i < fixed->nr; ++i) {
    uint64_t link[2];
    std::memcpy(link, bytes.data() + sizeof(Fixed) + i * 16, sizeof link);
    out.links.emplace_back(link[0], link[1]);
  }
  return out;
}

Result<CgroupRecord> CgroupRecord::decode(const RecordView& record) {
  if (record.type() != PERF_RECORD_CGROUP) return wrong_type(record, "CGROUP");
  struct Fixed {
    uint64_t id;
  };
  auto fixed = fixed_part<Fixed>(record);
  if (!fixed) return tl::unexpected(fixed.error());
  auto path = string_at(record, sizeof(Fixed), "path");
  if (!path) return tl::unexpected(path.error());
  return CgroupRecord{fixed->id, *path};
}

}  // namespace sonde::perfdata
