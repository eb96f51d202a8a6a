#include "format/blktrace_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "base/bytes.hpp"
#include "base/file.hpp"

namespace sonde::format {

void append_blk_trace(const BlkTrace& trace, std::string& out) {
  auto put = [&out](const auto& value) {
    char bytes[sizeof(value)];
    std::memcpy(bytes, &value, sizeof(value));
    out.append(bytes, sizeof(value));
  };
  put(uint32_t{kBlkTraceMagic | kBlkTraceVersion});
  put(trace.sequence);
  put(trace.time);
  put(trace.sector);
  put(trace.bytes);
  put(trace.action);
  put(trace.pid);
  put(trace.device);
  put(trace.cpu);
  put(trace.error);
  put(static_cast<uint16_t>(trace.pdu.size()));
  out += trace.pdu;
}

Result<BlktraceFile> read_blktrace_file(const std::string& path) {
  auto content = read_file(path);
  if (!content) return tl::unexpected(content.error());
  std::string_view bytes = *content;
  BlktraceFile file;
  std::vector<BlkTrace>& traces = file.traces;
  traces.reserve(bytes.size() / kBlkTraceHeaderSize);
  size_t at = 0;
  while (at < bytes.size()) {
    if (bytes.size() - at < kBlkTraceHeaderSize) {
      file.cut_short =
          fmt::format("{}: the last trace is cut short at offset {} (the file ends {} bytes into its header)",
                      path, at, bytes.size() - at);
      break;
    }
    uint32_t raw_magic = load<uint32_t>(reinterpret_cast<const uint8_t*>(bytes.data()) + at);
    bool swap = (raw_magic & 0xffffff00) != kBlkTraceMagic;
    OrderedBytes in(bytes, swap);
    uint32_t magic = in.u32(at);
    if ((magic & 0xffffff00) != kBlkTraceMagic)
      return failf("{}: not a blktrace file (bad magic {:#x} at offset {})", path, magic, at);
    if ((magic & 0xff) != kBlkTraceVersion)
      return failf("{}: blktrace format version {:#x} at offset {}; sonde reads version {:#x}", path,
                   magic & 0xff, at, kBlkTraceVersion);
    BlkTrace trace;
    trace.sequence = in.u32(at + 4);
    trace.time = in.u64(at + 8);
    trace.sector = in.u64(at + 16);
    trace.bytes = in.u32(at + 24);
    trace.action = in.u32(at + 28);
    trace.pid = in.u32(at + 32);
    trace.device = in.u32(at + 36);
    trace.cpu = in.u32(at + 40);
    trace.error = in.u16(at + 44);
    uint16_t pdu_len = in.u16(at + 46);
    at += kBlkTraceHeaderSize;
    if (!in.has(at, pdu_len)) {
      file.cut_short =
          fmt::format("{}: the last trace's {}-byte payload is cut short at offset {}", path, pdu_len, at);
      break;
    }
    trace.pdu.assign(bytes.substr(at, pdu_len));
    at += pdu_len;
    traces.push_back(std::move(trace));
  }
  return file;
}

void BlktraceStreams::add(BlkTrace trace, std::string_view comm) {
  if (trace.cpu >= cpus_.size()) {
    cpus_.resize(trace.cpu + 1);
    sequences_.resize(trace.cpu + 1);
  }
  auto& stream = cpus_[trace.cpu];
  auto named = std::lower_bound(named_pids_.begin(), named_pids_.end(), trace.pid);
  if (named == named_pids_.end() || *named != trace.pid) {
    named_pids_.insert(named, trace.pid);
    BlkTrace note;
    note.time = trace.time;
    note.action = blk_category(kBlkNotify) | kBlkNoteProcess;
    note.pid = trace.pid;
    note.device = trace.device;
    note.cpu = trace.cpu;
    note.pdu.assign(comm.substr(0, 15));
    note.pdu.resize(16, '\0');  // TASK_COMM_LEN, as the kernel sends it
    stream.push_back(std::move(note));
  }
  trace.sequence = ++sequences_[trace.cpu];
  stream.push_back(std::move(trace));
  ++traces_;
}

std::string blktrace_file_name(const std::string& name, int cpu) {
  return fmt::format("{}.blktrace.{}", name, cpu);
}

}  // namespace sonde::format
