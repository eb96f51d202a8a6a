#include "perfdata/sample.hpp"

#include <bit>

#include "perfdata/format.hpp"

namespace sonde::perfdata {

namespace {

// Walks a record body field by field; the first field that does not fit names itself.
class FieldReader {
 public:
  FieldReader(const RecordView& record, Bytes body) : record_(record), in_(body) {}

  Result<uint64_t> u64(const char* field) {
    auto v = in_.read<uint64_t>();
    if (!v) return missing(field);
    return *v;
  }
  Result<Bytes> bytes(size_t size, const char* field) {
    auto v = in_.take(size);
    if (!v) return missing(field);
    return *v;
  }
  // Bytes read so far: where the next field starts, counted from the end of the header.
  size_t offset() const { return in_.offset(); }
  // `count` u64s, refusing counts whose byte size would overflow.
  Result<U64Array> u64s(uint64_t count, const char* field) {
    if (count > in_.remaining() / sizeof(uint64_t)) return missing(field);
    return U64Array{*in_.take(count * sizeof(uint64_t))};
  }

 private:
  tl::unexpected<Error> missing(const char* field) {
    return failf("{} record at offset {:#x} ({} bytes) ends before its {} field", record_type_name(record_.type()),
                 record_.offset, record_.header.size, field);
  }
  const RecordView& record_;
  ByteReader in_;
};

#define TRY_FIELD(target, expr)            \
  do {                                     \
    auto value_ = (expr);                  \
    if (!value_) return tl::unexpected(value_.error()); \
    target = *value_;                      \
  } while (0)

Result<Regs> read_regs(FieldReader& in, uint64_t mask, const char* field) {
  Regs regs;
  regs.mask = mask;
  TRY_FIELD(regs.abi, in.u64(field));
  if (regs.abi != PERF_SAMPLE_REGS_ABI_NONE) TRY_FIELD(regs.values, in.u64s(static_cast<uint64_t>(std::popcount(mask)), field));
  return regs;
}

}  // namespace

ReadValues::Value ReadValues::value(size_t i) const {
  if (!(read_format & PERF_FORMAT_GROUP)) return single;
  Value v;
  const uint8_t* p = group_values.data() + i * stride * sizeof(uint64_t);
  v.value = load<uint64_t>(p);
  size_t k = 1;
  if (read_format & PERF_FORMAT_ID) v.id = load<uint64_t>(p + 8 * k++);
  if (read_format & PERF_FORMAT_LOST) v.lost = load<uint64_t>(p + 8 * k++);
  return v;
}

std::optional<uint64_t> Regs::get(int reg) const {
  if (reg < 0 || reg >= 64 || !(mask & (uint64_t{1} << reg)) || values.empty()) return std::nullopt;
  size_t index = static_cast<size_t>(std::popcount(mask & ((uint64_t{1} << reg) - 1)));
  if (index >= values.size()) return std::nullopt;
  return values[index];
}

std::optional<uint64_t> sample_time(const RecordView& record, const perf_event_attr& attr) {
  uint64_t type = attr.sample_type;
  if (!(type & PERF_SAMPLE_TIME)) return std::nullopt;
  size_t at = sizeof(uint64_t) * (!!(type & PERF_SAMPLE_IDENTIFIER) + !!(type & PERF_SAMPLE_IP) + !!(type & PERF_SAMPLE_TID));
  Bytes body = record.payload();
  if (body.size() < at + sizeof(uint64_t)) return std::nullopt;
  return load<uint64_t>(body.data() + at);
}

Result<Sample> decode_sample(const RecordView& record, const perf_event_attr& attr) {
  Sample s;
  uint64_t type = attr.sample_type;
  s.sample_type = type;
  FieldReader in(record, record.payload());
  if (type & PERF_SAMPLE_IDENTIFIER) {
    TRY_FIELD(s.identifier, in.u64("IDENTIFIER"));
    s.id = s.identifier;
  }
  if (type & PERF_SAMPLE_IP) TRY_FIELD(s.ip, in.u64("IP"));
  if (type & PERF_SAMPLE_TID) {
    uint64_t both = 0;
    TRY_FIELD(both, in.u64("TID"));
    s.pid = static_cast<uint32_t>(both);
    s.tid = static_cast<uint32_t>(both >> 32);
  }
  if (type & PERF_SAMPLE_TIME) TRY_FIELD(s.time, in.u64("TIME"));
  if (type & PERF_SAMPLE_ADDR) TRY_FIELD(s.addr, in.u64("ADDR"));
  if (type & PERF_SAMPLE_ID) TRY_FIELD(s.id, in.u64("ID"));
  if (type & PERF_SAMPLE_STREAM_ID) TRY_FIELD(s.stream_id, in.u64("STREAM_ID"));
  if (type & PERF_SAMPLE_CPU) {
    uint64_t both = 0;
    TRY_FIELD(both, in.u64("CPU"));
    s.cpu = static_cast<uint32_t>(both);  // the upper half is reserved
  }
  if (type & PERF_SAMPLE_PERIOD) TRY_FIELD(s.period, in.u64("PERIOD"));
  if (type & PERF_SAMPLE_READ) {
    uint64_t format = attr.read_format;
    s.read.read_format = format;
    s.read.stride = 1 + ((format & PERF_FORMAT_ID) ? 1 : 0) + ((format & PERF_FORMAT_LOST) ? 1 : 0);
    // Group: nr, [enabled], [running], values[nr]. Single: value, [enabled], [running], [id], [lost].
    if (format & PERF_FORMAT_GROUP) {
      uint64_t nr = 0;
      TRY_FIELD(nr, in.u64("READ"));
      if (format & PERF_FORMAT_TOTAL_TIME_ENABLED) TRY_FIELD(s.read.time_enabled, in.u64("READ"));
      if (format & PERF_FORMAT_TOTAL_TIME_RUNNING) TRY_FIELD(s.read.time_running, in.u64("READ"));
      if (nr > (uint64_t{1} << 20)) return failf("SAMPLE record at offset {:#x}: READ group of {} values", record.offset, nr);
      U64Array values;
      TRY_FIELD(values, in.u64s(nr * s.read.stride, "READ"));
      s.read.group_values = values.bytes;
      s.read.nr = nr;
    } else {
      s.read.nr = 1;
      TRY_FIELD(s.read.single.value, in.u64("READ"));
      if (format & PERF_FORMAT_TOTAL_TIME_ENABLED) TRY_FIELD(s.read.time_enabled, in.u64("READ"));
      if (format & PERF_FORMAT_TOTAL_TIME_RUNNING) TRY_FIELD(s.read.time_running, in.u64("READ"));
      if (format & PERF_FORMAT_ID) TRY_FIELD(s.read.single.id, in.u64("READ"));
      if (format & PERF_FORMAT_LOST) TRY_FIELD(s.read.single.lost, in.u64("READ"));
    }
  }
  if (type & PERF_SAMPLE_CALLCHAIN) {
    uint64_t nr = 0;
    TRY_FIELD(nr, in.u64("CALLCHAIN"));
    TRY_FIELD(s.callchain, in.u64s(nr, "CALLCHAIN"));
  }
  if (type & PERF_SAMPLE_RAW) {
    // u32 size then the data; together they keep the record 8-byte aligned.
    Bytes size_bytes;
    TRY_FIELD(size_bytes, in.bytes(sizeof(uint32_t), "RAW"));
    TRY_FIELD(s.raw, in.bytes(load<uint32_t>(size_bytes.data()), "RAW"));
  }
  if (type & PERF_SAMPLE_BRANCH_STACK) {
    TRY_FIELD(s.branch_nr, in.u64("BRANCH_STACK"));
    if (attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
      if (auto hw_idx = in.u64("BRANCH_STACK"); !hw_idx) return tl::unexpected(hw_idx.error());
    }
    U64Array entries;  // perf_branch_entry: from, to, flags
    if (s.branch_nr > (uint64_t{1} << 20)) return failf("SAMPLE record at offset {:#x}: BRANCH_STACK of {} entries", record.offset, s.branch_nr);
    TRY_FIELD(entries, in.u64s(s.branch_nr * 3, "BRANCH_STACK"));
  }
  if (type & PERF_SAMPLE_REGS_USER) TRY_FIELD(s.regs_user, read_regs(in, attr.sample_regs_user, "REGS_USER"));
  if (type & PERF_SAMPLE_STACK_USER) {
    uint64_t size = 0;
    s.stack_user_offset = static_cast<uint32_t>(sizeof(perf_event_header) + in.offset());
    TRY_FIELD(size, in.u64("STACK_USER"));
    if (size > 0) {
      TRY_FIELD(s.stack_user, in.bytes(size, "STACK_USER"));
      TRY_FIELD(s.stack_user_dyn_size, in.u64("STACK_USER"));
      if (s.stack_user_dyn_size > size) s.stack_user_dyn_size = size;
    }
  }
  if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) TRY_FIELD(s.weight, in.u64("WEIGHT"));
  if (type & PERF_SAMPLE_DATA_SRC) TRY_FIELD(s.data_src, in.u64("DATA_SRC"));
  if (type & PERF_SAMPLE_TRANSACTION) TRY_FIELD(s.transaction, in.u64("TRANSACTION"));
  if (type & PERF_SAMPLE_REGS_INTR) TRY_FIELD(s.regs_intr, read_regs(in, attr.sample_regs_intr, "REGS_INTR"));
  if (type & PERF_SAMPLE_PHYS_ADDR) TRY_FIELD(s.phys_addr, in.u64("PHYS_ADDR"));
  if (type & PERF_SAMPLE_CGROUP) TRY_FIELD(s.cgroup, in.u64("CGROUP"));
  if (type & PERF_SAMPLE_DATA_PAGE_SIZE) TRY_FIELD(s.data_page_size, in.u64("DATA_PAGE_SIZE"));
  if (type & PERF_SAMPLE_CODE_PAGE_SIZE) TRY_FIELD(s.code_page_size, in.u64("CODE_PAGE_SIZE"));
  if (type & PERF_SAMPLE_AUX) {
    uint64_t size = 0;
    TRY_FIELD(size, in.u64("AUX"));
    TRY_FIELD(s.aux, in.bytes(size, "AUX"));
  }
  return s;
}

size_t sample_id_size(const perf_event_attr& attr) {
  if (!attr.sample_id_all) return 0;
  uint64_t bits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
                  PERF_SAMPLE_IDENTIFIER;
  return static_cast<size_t>(std::popcount(attr.sample_type & bits)) * sizeof(uint64_t);
}

Result<SampleId> decode_sample_id(const RecordView& record, const perf_event_attr& attr) {
  SampleId id;
  size_t size = sample_id_size(attr);
  if (size == 0) return id;
  Bytes body = record.payload();
  if (body.size() < size)
    return failf("{} record at offset {:#x} ({} bytes) is too short for its {}-byte sample_id trailer",
                 record_type_name(record.type()), record.offset, record.header.size, size);
  FieldReader in(record, body.last(size));
  uint64_t type = attr.sample_type;
  id.present = true;
  if (type & PERF_SAMPLE_TID) {
    uint64_t both = 0;
    TRY_FIELD(both, in.u64("TID"));
    id.pid = static_cast<uint32_t>(both);
    id.tid = static_cast<uint32_t>(both >> 32);
  }
  if (type & PERF_SAMPLE_TIME) TRY_FIELD(id.time, in.u64("TIME"));
  if (type & PERF_SAMPLE_ID) TRY_FIELD(id.id, in.u64("ID"));
  if (type & PERF_SAMPLE_STREAM_ID) TRY_FIELD(id.stream_id, in.u64("STREAM_ID"));
  if (type & PERF_SAMPLE_CPU) {
    uint64_t both = 0;
    TRY_FIELD(both, in.u64("CPU"));
    id.cpu = static_cast<uint32_t>(both);
  }
  if (type & PERF_SAMPLE_IDENTIFIER) TRY_FIELD(id.id, in.u64("IDENTIFIER"));
  return id;
}

}  // namespace sonde::perfdata
