#include "perfdata/perf_records.hpp"

#include <fmt/format.h>

#include <cstring>

#include "base/bytes.hpp"
#include "format/perf_format.hpp"

namespace sonde::perfdata {

namespace {

tl::unexpected<Error> truncated(const RecordView& record) {
  return failf("{} record at offset {:#x} is shorter than its contents say (size {})",
               record_type_name(record.type()), record.offset, record.header.size);
}

// perf_record_cpu_map_data: a u16 type, then (packed) one of three encodings.
Result<std::vector<int32_t>> decode_cpu_map_data(const RecordView& record, Bytes data) {
  enum : uint16_t { kCpus = 0, kMask = 1, kRange = 2 };
  if (data.size() < 2) return truncated(record);
  uint16_t type = load<uint16_t>(data.data());
  std::vector<int32_t> cpus;
  if (type == kCpus) {
    if (data.size() < 4) return truncated(record);
    uint16_t nr = load<uint16_t>(data.data() + 2);
    if (data.size() < 4 + size_t{nr} * 2) return truncated(record);
    for (size_t i = 0; i < nr; ++i) {
      uint16_t cpu = load<uint16_t>(data.data() + 4 + i * 2);
      cpus.push_back(cpu == UINT16_MAX ? -1 : cpu);
    }
  } else if (type == kMask) {
    if (data.size() < 6) return truncated(record);
    uint16_t nr = load<uint16_t>(data.data() + 2);
    uint16_t long_size = load<uint16_t>(data.data() + 4);
    if (long_size != 4 && long_size != 8)
      return failf("CPU_MAP record at offset {:#x}: mask words of {} bytes", record.offset, long_size);
    size_t first = long_size == 4 ? 6 : 10;
    if (data.size() < first + size_t{nr} * long_size) return truncated(record);
    for (size_t i = 0; i < nr; ++i) {
      uint64_t word = long_size == 4 ? load<uint32_t>(data.data() + first + i * 4)
                                     : load<uint64_t>(data.data() + first + i * 8);
      for (unsigned bit = 0; bit < long_size * 8u; ++bit) {
        if (word & (uint64_t{1} << bit)) cpus.push_back(static_cast<int32_t>(i * long_size * 8 + bit));
      }
    }
  } else if (type == kRange) {
    if (data.size() < 8) return truncated(record);
    if (data[2] != 0) cpus.push_back(-1);
    uint16_t start = load<uint16_t>(data.data() + 4), end = load<uint16_t>(data.data() + 6);
    for (int32_t cpu = start; cpu <= end; ++cpu) cpus.push_back(cpu);
  } else {
    return failf("CPU_MAP record at offset {:#x}: unknown encoding {}", record.offset, type);
  }
  return cpus;
}

}  // namespace

Result<IdIndexRecord> IdIndexRecord::decode(const RecordView& record) {
  ByteReader in(record.payload());
  auto nr = in.read<uint64_t>();
  if (!nr || *nr > in.remaining() / 32) return truncated(record);
  // When the record has room for them, a second array (machine pid, vcpu) follows the first.
  bool has_machine = in.remaining() >= *nr * 48;
  IdIndexRecord out;
  out.entries.resize(*nr);
  for (Entry& entry : out.entries) {
    entry.id = *in.read<uint64_t>();
    entry.idx = *in.read<uint64_t>();
    entry.cpu = *in.read<int64_t>();
    entry.tid = *in.read<int64_t>();
  }
  if (has_machine) {
    for (Entry& entry : out.entries) {
      entry.has_machine = true;
      entry.machine_pid = *in.read<int64_t>();
      entry.vcpu = *in.read<uint64_t>();
    }
  }
  return out;
}

Result<ThreadMapRecord> ThreadMapRecord::decode(const RecordView& record) {
  ByteReader in(record.payload());
  auto nr = in.read<uint64_t>();
  constexpr size_t kEntrySize = 8 + 16;  // pid, comm[16]
  if (!nr || *nr > in.remaining() / kEntrySize) return truncated(record);
  ThreadMapRecord out;
  for (uint64_t i = 0; i < *nr; ++i) {
    out.pids.push_back(static_cast<int32_t>(*in.read<uint64_t>()));
    in.take(16);
  }
  return out;
}

Result<CpuMapRecord> CpuMapRecord::decode(const RecordView& record) {
  auto cpus = decode_cpu_map_data(record, record.payload());
  if (!cpus) return tl::unexpected(cpus.error());
  return CpuMapRecord{std::move(*cpus)};
}

Result<EventUpdateRecord> EventUpdateRecord::decode(const RecordView& record) {
  Bytes body = record.payload();
  if (body.size() < 16) return truncated(record);
  EventUpdateRecord out;
  out.type = load<uint64_t>(body.data());
  out.id = load<uint64_t>(body.data() + 8);
  Bytes rest = body.subspan(16);
  switch (out.type) {
    case kUnit:
    case kName: {
      const char* text = reinterpret_cast<const char*>(rest.data());
      out.text = std::string_view(text, strnlen(text, rest.size()));
      break;
    }
    case kScale:
      if (rest.size() < sizeof(double)) return truncated(record);
      out.scale = load<double>(rest.data());
      break;
    case kCpus: {
      auto cpus = decode_cpu_map_data(record, rest);
      if (!cpus) return tl::unexpected(cpus.error());
      out.cpus = std::move(*cpus);
      break;
    }
    default:
      break;
  }
  return out;
}

std::string cpu_list_text(const std::vector<int32_t>& cpus) {
  // Runs where the CPU grows by one with the position, as perf's cpu_map__snprint finds them.
  std::string out;
  size_t start = 0;
  for (size_t i = 1; i <= cpus.size(); ++i) {
    bool last = i == cpus.size();
    if (!last && cpus[i] - cpus[start] == static_cast<int32_t>(i - start)) continue;
    if (!out.empty()) out.push_back(',');
    if (i - 1 == start)
      out += fmt::format("{}", cpus[start]);
    else
      out += fmt::format("{}-{}", cpus[start], cpus[i - 1]);
    start = i;
  }
  return out;
}

}  // namespace sonde::perfdata
