#pragma once
// Buffered, position-tracking output over a file descriptor: records are small, the kernel's
// write() calls are not, so bytes gather into a large buffer and go out in big writes.
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde {

class OutputStream {
 public:
  // `owns_fd` closes the descriptor on destruction; a pipe's stdout is not ours to close.
  OutputStream(int fd, bool owns_fd, std::string name);
  ~OutputStream();
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;

  Result<void> write(const void* data, size_t size);
  Result<void> flush();
  // Writes at an absolute offset without moving the stream (seekable files only); flushes first.
  Result<void> write_at(uint64_t offset, const void* data, size_t size);
  // Bytes written so far, buffered or not: the offset of the next byte.
  uint64_t position() const { return position_; }
  Result<void> close();

 private:
  Result<void> write_all(const void* data, size_t size);

  int fd_;
  bool owns_fd_;
  std::string name_;
  std::vector<char> buffer_;
  size_t used_ = 0;
  uint64_t position_ = 0;
};

}  // namespace sonde
