#include "format/sample.hpp"

#include <bit>

#include "format/perf_format.hpp"

namespace sonde::perfdata {

namespace {

// Walks a record body field by field. A field that does not fit leaves its target as it was
// and every read after it does nothing; ok() turns false and error() names that first field
// (no Result per field: samples are decoded a million at a time).
class FieldReader {
 public:
  FieldReader(const RecordView& record, Bytes body) : record_(record), in_(body) {}

  void u64(uint64_t& out, const char* field) {
    if (missing_) return;
    if (auto v = in_.read<uint64_t>())
      out = *v;
    else
      missing_ = field;
  }
  void u32(uint32_t& out, const char* field) {
    if (missing_) return;
    if (auto v = in_.read<uint32_t>())
      out = *v;
    else
      missing_ = field;
  }
  void bytes(Bytes& out, size_t size, const char* field) {
    if (missing_) return;
    if (auto v = in_.take(size))
      out = *v;
    else
      missing_ = field;
  }
  // `count` u64s, refusing counts whose byte size would overflow.
  void u64s(U64Array& out, uint64_t count, const char* field) {
    if (missing_) return;
    if (count > in_.remaining() / sizeof(uint64_t))
      missing_ = field;
    else
      out = U64Array{*in_.take(count * sizeof(uint64_t))};
  }
  // Bytes read so far: where the next field starts, counted from the end of the header.
  size_t offset() const { return in_.offset(); }
  size_t remaining() const { return in_.remaining(); }
  bool ok() const { return missing_ == nullptr; }
  tl::unexpected<Error> error() const {
    return failf("{} record at offset {:#x} ({} bytes) ends before its {} field",
                 record_type_name(record_.type()), record_.offset, record_.header.size, missing_);
  }

 private:
  const RecordView& record_;
  ByteReader in_;
  const char* missing_ = nullptr;
};

void read_regs(FieldReader& in, Regs& regs, uint64_t mask, const char* field) {
  regs.mask = mask;
  in.u64(regs.abi, field);
  if (in.ok() && regs.abi != PERF_SAMPLE_REGS_ABI_NONE)
    in.u64s(regs.values, static_cast<uint64_t>(std::popcount(mask)), field);
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
  size_t at = sizeof(uint64_t) *
              (!!(type & PERF_SAMPLE_IDENTIFIER) + !!(type & PERF_SAMPLE_IP) + !!(type & PERF_SAMPLE_TID));
  Bytes body = record.payload();
  if (body.size() < at + sizeof(uint64_t)) return std::nullopt;
  return load<uint64_t>(body.data() + at);
}

Result<Sample> decode_sample(const RecordView& record, const perf_event_attr& attr) {
  Sample s;
  if (auto decoded = decode_sample_into(record, attr, s); !decoded) return tl::unexpected(decoded.error());
  return s;
}

Result<void> decode_sample_into(const RecordView& record, const perf_event_attr& attr, Sample& s) {
  s = Sample{};
  uint64_t type = attr.sample_type;
  s.sample_type = type;
  FieldReader in(record, record.payload());
  if (type & PERF_SAMPLE_IDENTIFIER) {
    in.u64(s.identifier, "IDENTIFIER");
    s.id = s.identifier;
  }
  if (type & PERF_SAMPLE_IP) in.u64(s.ip, "IP");
  if (type & PERF_SAMPLE_TID) {
    uint64_t both = 0;
    in.u64(both, "TID");
    s.pid = static_cast<uint32_t>(both);
    s.tid = static_cast<uint32_t>(both >> 32);
  }
  if (type & PERF_SAMPLE_TIME) in.u64(s.time, "TIME");
  if (type & PERF_SAMPLE_ADDR) in.u64(s.addr, "ADDR");
  if (type & PERF_SAMPLE_ID) in.u64(s.id, "ID");
  if (type & PERF_SAMPLE_STREAM_ID) in.u64(s.stream_id, "STREAM_ID");
  if (type & PERF_SAMPLE_CPU) {
    uint64_t both = 0;
    in.u64(both, "CPU");
    s.cpu = static_cast<uint32_t>(both);  // the upper half is reserved
  }
  if (type & PERF_SAMPLE_PERIOD) in.u64(s.period, "PERIOD");
  if (type & PERF_SAMPLE_READ) {
    uint64_t format = attr.read_format;
    s.read.read_format = format;
    s.read.stride = 1 + ((format & PERF_FORMAT_ID) ? 1 : 0) + ((format & PERF_FORMAT_LOST) ? 1 : 0);
    // Group: nr, [enabled], [running], values[nr]. Single: value, [enabled], [running], [id], [lost].
    if (format & PERF_FORMAT_GROUP) {
      uint64_t nr = 0;
      in.u64(nr, "READ");
      if (format & PERF_FORMAT_TOTAL_TIME_ENABLED) in.u64(s.read.time_enabled, "READ");
      if (format & PERF_FORMAT_TOTAL_TIME_RUNNING) in.u64(s.read.time_running, "READ");
      if (nr > (uint64_t{1} << 20))
        return failf("SAMPLE record at offset {:#x}: READ group of {} values", record.offset, nr);
      U64Array values;
      in.u64s(values, nr * s.read.stride, "READ");
      s.read.group_values = values.bytes;
      s.read.nr = nr;
    } else {
      s.read.nr = 1;
      in.u64(s.read.single.value, "READ");
      if (format & PERF_FORMAT_TOTAL_TIME_ENABLED) in.u64(s.read.time_enabled, "READ");
      if (format & PERF_FORMAT_TOTAL_TIME_RUNNING) in.u64(s.read.time_running, "READ");
      if (format & PERF_FORMAT_ID) in.u64(s.read.single.id, "READ");
      if (format & PERF_FORMAT_LOST) in.u64(s.read.single.lost, "READ");
    }
  }
  if (type & PERF_SAMPLE_CALLCHAIN) {
    uint64_t nr = 0;
    in.u64(nr, "CALLCHAIN");
    in.u64s(s.callchain, nr, "CALLCHAIN");
  }
  if (type & PERF_SAMPLE_RAW) {
    // u32 size then the data; together they keep the record 8-byte aligned.
    uint32_t size = 0;
    in.u32(size, "RAW");
    in.bytes(s.raw, size, "RAW");
  }
  if (type & PERF_SAMPLE_BRANCH_STACK) {
    in.u64(s.branch_nr, "BRANCH_STACK");
    if (attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
      uint64_t hw_idx = 0;
      in.u64(hw_idx, "BRANCH_STACK");
    }
    U64Array entries;  // perf_branch_entry: from, to, flags
    if (s.branch_nr > (uint64_t{1} << 20))
      return failf("SAMPLE record at offset {:#x}: BRANCH_STACK of {} entries", record.offset, s.branch_nr);
    in.u64s(entries, s.branch_nr * 3, "BRANCH_STACK");
    // Linux 6.8's PERF_SAMPLE_BRANCH_COUNTERS (perf record -j any,counter): a u64 of event
    // counts per branch after the entries. Not read, but stepped over.
    constexpr uint64_t kBranchCounters = uint64_t{1} << 19;
    if (attr.branch_sample_type & kBranchCounters) {
      U64Array counters;
      in.u64s(counters, s.branch_nr, "BRANCH_STACK");
    }
  }
  if (type & PERF_SAMPLE_REGS_USER) read_regs(in, s.regs_user, attr.sample_regs_user, "REGS_USER");
  if (type & PERF_SAMPLE_STACK_USER) {
    uint64_t size = 0;
    s.stack_user_offset = static_cast<uint32_t>(sizeof(perf_event_header) + in.offset());
    in.u64(size, "STACK_USER");
    if (size > 0) {
      in.bytes(s.stack_user, size, "STACK_USER");
      in.u64(s.stack_user_dyn_size, "STACK_USER");
      if (s.stack_user_dyn_size > size) s.stack_user_dyn_size = size;
    }
  }
  if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) in.u64(s.weight, "WEIGHT");
  if (type & PERF_SAMPLE_DATA_SRC) in.u64(s.data_src, "DATA_SRC");
  if (type & PERF_SAMPLE_TRANSACTION) in.u64(s.transaction, "TRANSACTION");
  if (type & PERF_SAMPLE_REGS_INTR) read_regs(in, s.regs_intr, attr.sample_regs_intr, "REGS_INTR");
  if (type & PERF_SAMPLE_PHYS_ADDR) in.u64(s.phys_addr, "PHYS_ADDR");
  if (type & PERF_SAMPLE_CGROUP) in.u64(s.cgroup, "CGROUP");
  if (type & PERF_SAMPLE_DATA_PAGE_SIZE) in.u64(s.data_page_size, "DATA_PAGE_SIZE");
  if (type & PERF_SAMPLE_CODE_PAGE_SIZE) in.u64(s.code_page_size, "CODE_PAGE_SIZE");
  if (type & PERF_SAMPLE_AUX) {
    uint64_t size = 0;
    in.u64(size, "AUX");
    in.bytes(s.aux, size, "AUX");
  }
  if (!in.ok()) return in.error();
  // The kernel writes exactly the fields sample_type names: bytes left over mean the two disagree,
  // unless a newer kernel's field (a sample_type bit past the ones known here) holds them.
  if (in.remaining() != 0 && type < PERF_SAMPLE_MAX)
    return failf(
        "SAMPLE record at offset {:#x} ({} bytes) holds {} bytes more than its sample_type {:#x} names",
        record.offset, record.header.size, in.remaining(), type);
  return {};
}

size_t sample_id_size(const perf_event_attr& attr) {
  if (!attr.sample_id_all) return 0;
  uint64_t bits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                  PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
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
    in.u64(both, "TID");
    id.pid = static_cast<uint32_t>(both);
    id.tid = static_cast<uint32_t>(both >> 32);
  }
  if (type & PERF_SAMPLE_TIME) in.u64(id.time, "TIME");
  if (type & PERF_SAMPLE_ID) in.u64(id.id, "ID");
  if (type & PERF_SAMPLE_STREAM_ID) in.u64(id.stream_id, "STREAM_ID");
  if (type & PERF_SAMPLE_CPU) {
    uint64_t both = 0;
    in.u64(both, "CPU");
    id.cpu = static_cast<uint32_t>(both);
  }
  if (type & PERF_SAMPLE_IDENTIFIER) in.u64(id.id, "IDENTIFIER");
  if (!in.ok()) return in.error();
  return id;
}

}  // namespace sonde::perfdata
