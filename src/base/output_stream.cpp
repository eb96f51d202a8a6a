#include "base/output_stream.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sonde {

namespace {
constexpr size_t kBufferSize = 1 << 20;
}

OutputStream::OutputStream(int fd, bool owns_fd, std::string name)
    : fd_(fd), owns_fd_(owns_fd), name_(std::move(name)), buffer_(kBufferSize) {}

OutputStream::~OutputStream() {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

Result<void> OutputStream::write_all(const void* data, size_t size) {
  auto* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd_, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail_errno(errno, fmt::format("writing {}", name_));
    p += n;
    size -= static_cast<size_t>(n);
  }
  return {};
}

Result<void> OutputStream::write(const void* data, size_t size) {
  if (size == 0) return {};
  position_ += size;
  if (used_ + size <= buffer_.size()) {
    std::memcpy(buffer_.data() + used_, data, size);
    used_ += size;
    return {};
  }
  if (auto r = flush(); !r) return r;
  if (size >= buffer_.size()) return write_all(data, size);
  std::memcpy(buffer_.data(), data, size);
  used_ = size;
  return {};
}

Result<void> OutputStream::flush() {
  if (used_ == 0) return {};
  auto r = write_all(buffer_.data(), used_);
  used_ = 0;
  return r;
}

Result<void> OutputStream::write_at(uint64_t offset, const void* data, size_t size) {
  if (auto r = flush(); !r) return r;
  auto* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::pwrite(fd_, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failf("writing {} at offset {:#x}: {}", name_, offset, errno_text(errno));
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return {};
}

Result<void> OutputStream::close() {
  auto r = flush();
  if (owns_fd_ && fd_ >= 0) {
    if (::close(fd_) != 0 && r) r = failf("closing {}: {}", name_, errno_text(errno));
    fd_ = -1;
  }
  return r;
}

}  // namespace sonde
