#include "format/blktrace_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/bytes.hpp"

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

Result<BlktraceReader> BlktraceReader::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail_errno(errno, fmt::format("cannot open {}", path));
  BlktraceReader reader;
  reader.path_ = path;
  reader.fd_ = UniqueFd(fd);
  return reader;
}

Result<bool> BlktraceReader::fill(size_t size) {
  if (buffer_.size() - at_ >= size) return true;
  buffer_.erase(0, at_);
  consumed_ += at_;
  at_ = 0;
  constexpr size_t kChunk = 1 << 16;
  while (buffer_.size() < size && !ended_) {
    size_t had = buffer_.size();
    buffer_.resize(had + std::max(kChunk, size - had));
    ssize_t got = ::read(fd_.get(), buffer_.data() + had, buffer_.size() - had);
    if (got < 0 && errno == EINTR) got = 0;
    if (got < 0) return fail_errno(errno, fmt::format("cannot read {}", path_));
    buffer_.resize(had + static_cast<size_t>(got));
    if (got == 0) ended_ = true;
  }
  return buffer_.size() >= size;
}

Result<bool> BlktraceReader::next(BlkTrace& trace) {
  if (!cut_short_.empty()) return false;
  auto header = fill(kBlkTraceHeaderSize);
  if (!header) return tl::unexpected(header.error());
  uint64_t offset = consumed_ + at_;
  if (!*header) {
    if (buffer_.size() > at_)
      cut_short_ =
          fmt::format("{}: the last trace is cut short at offset {} (the file ends {} bytes into its header)",
                      path_, offset, buffer_.size() - at_);
    return false;
  }
  std::string_view bytes = std::string_view(buffer_).substr(at_);
  if (!order_known_) {
    uint32_t raw_magic = load<uint32_t>(reinterpret_cast<const uint8_t*>(bytes.data()));
    swap_ = (raw_magic & 0xffffff00) != kBlkTraceMagic;
    order_known_ = true;
  }
  OrderedBytes in(bytes, swap_);
  uint32_t magic = in.u32(0);
  if ((magic & 0xffffff00) != kBlkTraceMagic)
    return failf("{}: not a blktrace file (bad magic {:#x} at offset {})", path_, magic, offset);
  if ((magic & 0xff) != kBlkTraceVersion)
    return failf("{}: blktrace format version {:#x} at offset {}; sonde reads version {:#x}", path_,
                 magic & 0xff, offset, kBlkTraceVersion);
  trace.sequence = in.u32(4);
  trace.time = in.u64(8);
  trace.sector = in.u64(16);
  trace.bytes = in.u32(24);
  trace.action = in.u32(28);
  trace.pid = in.u32(32);
  trace.device = in.u32(36);
  trace.cpu = in.u32(40);
  trace.error = in.u16(44);
  uint16_t pdu_len = in.u16(46);
  auto whole = fill(kBlkTraceHeaderSize + pdu_len);
  if (!whole) return tl::unexpected(whole.error());
  if (!*whole) {
    cut_short_ = fmt::format("{}: the last trace's {}-byte payload is cut short at offset {}", path_, pdu_len,
                             offset + kBlkTraceHeaderSize);
    return false;
  }
  trace.pdu.assign(buffer_, at_ + kBlkTraceHeaderSize, pdu_len);
  at_ += kBlkTraceHeaderSize + pdu_len;
  return true;
}

void BlktraceStreams::add(BlkTrace trace, const std::function<std::string(uint32_t pid)>& comm_of) {
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
    note.pdu = comm_of(trace.pid).substr(0, 15);
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
