#include "format/synthesize.hpp"

#include "base/bytes.hpp"
#include "format/perf_format.hpp"

namespace sonde::perfdata {

namespace {

void put_trailer(ByteWriter& out, const perf_event_attr& attr, const SyntheticId& id) {
  if (!attr.sample_id_all) return;
  uint64_t type = attr.sample_type;
  if (type & PERF_SAMPLE_TID) {
    out.put(id.pid);
    out.put(id.tid);
  }
  if (type & PERF_SAMPLE_TIME) out.put(id.time);
  if (type & PERF_SAMPLE_ID) out.put(id.id);
  if (type & PERF_SAMPLE_STREAM_ID) out.put(id.stream_id);
  if (type & PERF_SAMPLE_CPU) {
    out.put(id.cpu);
    out.put(uint32_t{0});
  }
  if (type & PERF_SAMPLE_IDENTIFIER) out.put(id.id);
}

// A NUL-terminated string padded to 8 bytes, as the kernel writes comm and file names.
void put_name(ByteWriter& out, std::string_view name) {
  out.put_bytes(name.data(), name.size());
  out.put_zeros(ByteWriter::align_up(name.size() + 1, 8) - name.size());
}

std::string finish(ByteWriter& out, uint32_t type, uint16_t misc) {
  auto header = perf_event_header{type, misc, static_cast<uint16_t>(out.size())};
  std::memcpy(out.str().data(), &header, sizeof header);
  return std::move(out.str());
}

}  // namespace

Result<std::string> make_sample(const perf_event_attr& attr, const SyntheticSample& s) {
  uint64_t type = attr.sample_type;
  if (type & ~kSynthesizableSampleType) return failf("cannot synthesize samples of sample_type {:#x}", type);
  ByteWriter out;
  out.put_zeros(sizeof(perf_event_header));
  if (type & PERF_SAMPLE_IDENTIFIER) out.put(s.id);
  if (type & PERF_SAMPLE_IP) out.put(s.ip);
  if (type & PERF_SAMPLE_TID) {
    out.put(s.pid);
    out.put(s.tid);
  }
  if (type & PERF_SAMPLE_TIME) out.put(s.time);
  if (type & PERF_SAMPLE_ADDR) out.put(s.addr);
  if (type & PERF_SAMPLE_ID) out.put(s.id);
  if (type & PERF_SAMPLE_STREAM_ID) out.put(s.stream_id);
  if (type & PERF_SAMPLE_CPU) {
    out.put(s.cpu);
    out.put(uint32_t{0});
  }
  if (type & PERF_SAMPLE_PERIOD) out.put(s.period);
  if (type & PERF_SAMPLE_CALLCHAIN) {
    out.put(static_cast<uint64_t>(s.callchain.size()));
    out.put_bytes(s.callchain.data(), s.callchain.size_bytes());
  }
  if (type & PERF_SAMPLE_RAW) {
    // The kernel pads the raw data so that the u32 size plus the data end 8-byte aligned.
    size_t padded = ByteWriter::align_up(s.raw.size() + sizeof(uint32_t), 8) - sizeof(uint32_t);
    out.put(static_cast<uint32_t>(padded));
    out.put_bytes(s.raw.data(), s.raw.size());
    out.put_zeros(padded - s.raw.size());
  }
  if (type & PERF_SAMPLE_WEIGHT) out.put(s.weight);
  if (out.size() > kMaxRecordSize)
    return failf("synthesized sample of {} bytes exceeds a record's 64 KiB", out.size());
  return finish(out, PERF_RECORD_SAMPLE, s.misc);
}

std::string make_comm(const perf_event_attr& attr, uint32_t pid, uint32_t tid, std::string_view comm,
                      bool exec, const SyntheticId& id) {
  ByteWriter out;
  out.put_zeros(sizeof(perf_event_header));
  out.put(pid);
  out.put(tid);
  put_name(out, comm.substr(0, 15));  // TASK_COMM_LEN
  put_trailer(out, attr, id);
  return finish(out, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
}

std::string make_cgroup(const perf_event_attr& attr, uint64_t cgroup_id, std::string_view path,
                        const SyntheticId& id) {
  ByteWriter out;
  out.put_zeros(sizeof(perf_event_header));
  out.put(cgroup_id);
  put_name(out, path);
  put_trailer(out, attr, id);
  return finish(out, PERF_RECORD_CGROUP, 0);
}

std::string make_namespaces(const perf_event_attr& attr, uint32_t pid, uint32_t tid,
                            std::span<const std::pair<uint64_t, uint64_t>> links, const SyntheticId& id) {
  ByteWriter out;
  out.put_zeros(sizeof(perf_event_header));
  out.put(pid);
  out.put(tid);
  out.put(static_cast<uint64_t>(links.size()));
  for (const auto& [dev, ino] : links) {
    out.put(dev);
    out.put(ino);
  }
  put_trailer(out, attr, id);
  return finish(out, PERF_RECORD_NAMESPACES, 0);
}

std::string make_mmap2(const perf_event_attr& attr, const SyntheticMmap2& m, const SyntheticId& id) {
  ByteWriter out;
  out.put_zeros(sizeof(perf_event_header));
  out.put(m.pid);
  out.put(m.tid);
  out.put(m.addr);
  out.put(m.len);
  out.put(m.pgoff);
  out.put(m.maj);
  out.put(m.min);
  out.put(m.ino);
  out.put(m.ino_generation);
  out.put(m.prot);
  out.put(m.flags);
  put_name(out, m.filename.substr(0, 4095));
  put_trailer(out, attr, id);
  return finish(out, PERF_RECORD_MMAP2, m.misc);
}

std::string make_mmap(const perf_event_attr& attr, uint32_t pid, uint32_t tid, uint64_t addr, uint64_t len,
                      uint64_t pgoff, std::string_view filename, uint16_t misc, const SyntheticId& id) {
  ByteWriter out;
  out.put_zeros(sizeof(perf_event_header));
  out.put(pid);
  out.put(tid);
  out.put(addr);
  out.put(len);
  out.put(pgoff);
  put_name(out, filename.substr(0, 4095));
  put_trailer(out, attr, id);
  return finish(out, PERF_RECORD_MMAP, misc);
}

std::string make_fork_exit(const perf_event_attr& attr, bool fork, uint32_t pid, uint32_t ppid, uint32_t tid,
                           uint32_t ptid, uint64_t time, const SyntheticId& id) {
  ByteWriter out;
  out.put_zeros(sizeof(perf_event_header));
  out.put(pid);
  out.put(ppid);
  out.put(tid);
  out.put(ptid);
  out.put(time);
  put_trailer(out, attr, id);
  return finish(out, fork ? PERF_RECORD_FORK : PERF_RECORD_EXIT, 0);
}

std::string make_finished_round() {
  ByteWriter out;
  out.put(perf_event_header{PERF_RECORD_FINISHED_ROUND, 0, sizeof(perf_event_header)});
  return std::move(out.str());
}

}  // namespace sonde::perfdata
