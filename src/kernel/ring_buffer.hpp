#pragma once
// The mmap'ed ring buffer of a sampling perf event: one metadata page plus 2^n data pages. The
// kernel advances data_head; we copy records out and advance data_tail. A backward buffer (the
// events' write_backward, perf record --overwrite) is a flight recorder instead: the kernel writes
// each record before the last and overwrites the oldest, and we read what is there when asked.
// No policy here.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "base/error.hpp"

namespace sonde::kernel {

class RingBuffer {
 public:
  // Maps `data_pages` (a power of two) data pages over a perf event fd; `backward` maps it read-only,
  // which tells the kernel it may overwrite what we have not read.
  static Result<RingBuffer> map(int fd, size_t data_pages, bool backward = false);
  RingBuffer(RingBuffer&& other) noexcept;
  RingBuffer& operator=(RingBuffer&&) = delete;
  RingBuffer(const RingBuffer&) = delete;
  ~RingBuffer();

  int fd() const { return fd_; }
  // Hands every complete record now in the buffer to `sink(const void* data, size_t size)`, in
  // order, then frees their space. Records that wrap around the end are copied into a scratch
  // buffer once; the others are passed in place. Returns the bytes consumed.
  template <typename Sink>
  size_t drain(Sink&& sink);
  // A backward buffer: pauses the kernel's writing, hands the records written since the last
  // snapshot (as many as the buffer still holds) to `sink` oldest first, and resumes.
  template <typename Sink>
  size_t snapshot(Sink&& sink);
  bool backward() const { return backward_; }

 private:
  RingBuffer() = default;
  uint64_t head() const;
  void set_tail(uint64_t tail);
  void pause(bool paused) const;
  // The bytes from `position` on, unwrapped, into `into`.
  void copy_out(uint64_t position, size_t size, std::vector<unsigned char>& into) const;

  int fd_ = -1;
  void* base_ = nullptr;  // metadata page followed by the data pages
  size_t mapped_size_ = 0;
  unsigned char* data_ = nullptr;
  size_t data_size_ = 0;  // a power of two
  uint64_t tail_ = 0;     // our read position, mirrored into the metadata page
  bool backward_ = false;
  uint64_t snapshot_head_ = 0;  // a backward buffer's head at the last snapshot (it counts down)
  std::vector<unsigned char> scratch_;
};

template <typename Sink>
size_t RingBuffer::drain(Sink&& sink) {
  struct RecordHeader {
    uint32_t type;
    uint16_t misc;
    uint16_t size;
  };
  uint64_t head_position = head();
  uint64_t tail_position = tail_;
  size_t consumed = 0;
  while (tail_position + sizeof(RecordHeader) <= head_position) {
    size_t offset = static_cast<size_t>(tail_position & (data_size_ - 1));
    RecordHeader header;
    // The header itself may wrap.
    for (size_t i = 0; i < sizeof header; ++i)
      reinterpret_cast<unsigned char*>(&header)[i] = data_[(offset + i) & (data_size_ - 1)];
    if (header.size < sizeof header || tail_position + header.size > head_position) break;
    if (offset + header.size <= data_size_) {
      sink(static_cast<const void*>(data_ + offset), static_cast<size_t>(header.size));
    } else {
      scratch_.resize(header.size);
      size_t first = data_size_ - offset;
      std::copy(data_ + offset, data_ + data_size_, scratch_.data());
      std::copy(data_, data_ + (header.size - first), scratch_.data() + first);
      sink(static_cast<const void*>(scratch_.data()), static_cast<size_t>(header.size));
    }
    tail_position += header.size;
    consumed += header.size;
  }
  tail_ = tail_position;
  set_tail(tail_position);
  return consumed;
}

template <typename Sink>
size_t RingBuffer::snapshot(Sink&& sink) {
  pause(true);
  const uint64_t newest = head();
  // Written since the last snapshot: [newest, snapshot_head_), newest record first; a buffer that
  // went round holds only its size of it, and its oldest record there may be cut.
  const uint64_t written = snapshot_head_ - newest;
  const size_t span = static_cast<size_t>(std::min<uint64_t>(written, data_size_));
  copy_out(newest, span, scratch_);
  pause(false);
  snapshot_head_ = newest;
  std::vector<std::pair<size_t, size_t>> records;  // (offset, size) in scratch_, newest first
  size_t offset = 0;
  while (offset + 8 <= span) {
    uint16_t size = 0;
    std::copy(scratch_.data() + offset + 6, scratch_.data() + offset + 8,
              reinterpret_cast<unsigned char*>(&size));
    if (size < 8 || offset + size > span) break;  // never written, or cut by the wrap
    records.emplace_back(offset, size);
    offset += size;
  }
  for (auto record = records.rbegin(); record != records.rend(); ++record)
    sink(static_cast<const void*>(scratch_.data() + record->first), record->second);
  return offset;
}

}  // namespace sonde::kernel
