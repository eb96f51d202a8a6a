#pragma once
// The mmap'ed ring buffer of a sampling perf event: one metadata page plus 2^n data pages. The
// kernel advances data_head; we copy records out and advance data_tail. No policy here.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/error.hpp"

namespace sonde::kernel {

class RingBuffer {
 public:
  // Maps `data_pages` (a power of two) data pages over a perf event fd.
  static Result<RingBuffer> map(int fd, size_t data_pages);
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

 private:
  RingBuffer() = default;
  uint64_t head() const;
  void set_tail(uint64_t tail);

  int fd_ = -1;
  void* base_ = nullptr;  // metadata page followed by the data pages
  size_t mapped_size_ = 0;
  unsigned char* data_ = nullptr;
  size_t data_size_ = 0;  // a power of two
  uint64_t tail_ = 0;     // our read position, mirrored into the metadata page
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

}  // namespace sonde::kernel
