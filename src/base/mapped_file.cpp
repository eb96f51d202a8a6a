#include "base/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <utility>

namespace sonde {

Result<MappedFile> MappedFile::open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO without a writer would wait forever; it is refused below anyway.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return failf("cannot open {}: {}", path, errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return failf("cannot stat {}: {}", path, errno_text(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return failf("{} is not a regular file", path);
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return MappedFile(nullptr, 0);  // mmap refuses length 0; an empty view says the same
  }
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int err = errno;
  ::close(fd);
  if (data == MAP_FAILED) return failf("cannot map {}: {}", path, errno_text(err));
  ::madvise(data, size, MADV_SEQUENTIAL);
  return MappedFile(data, size);
}

void MappedFile::release_before(size_t end) {
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  end = std::min(end, size_) / page * page;
  // In steps of 32 MiB: each release flushes the TLB of every CPU running one of our threads.
  static constexpr size_t kStep = size_t{32} << 20;
  if (data_ == nullptr || end <= released_ || (end - released_ < kStep && end < size_ / page * page)) return;
  ::madvise(static_cast<uint8_t*>(data_) + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      released_(std::exchange(other.released_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_) ::munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    released_ = std::exchange(other.released_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

}  // namespace sonde
