#include "kernel/ring_buffer.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

namespace sonde::kernel {

Result<RingBuffer> RingBuffer::map(int fd, size_t data_pages, bool backward) {
  if (data_pages == 0 || (data_pages & (data_pages - 1)) != 0)
    return failf("ring buffer size must be a power of two pages, not {}", data_pages);
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t size = (data_pages + 1) * page;
  void* base = ::mmap(nullptr, size, backward ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    int err = errno;
    std::string hint =
        err == EPERM || err == ENOMEM ? "; use fewer pages (-m) or raise perf_event_mlock_kb" : "";
    return failf("cannot map the perf ring buffer ({} pages): {}{}", data_pages, errno_text(err), hint);
  }
  RingBuffer buffer;
  buffer.fd_ = fd;
  buffer.base_ = base;
  buffer.mapped_size_ = size;
  buffer.data_ = static_cast<unsigned char*>(base) + page;
  buffer.data_size_ = data_pages * page;
  buffer.tail_ = static_cast<perf_event_mmap_page*>(base)->data_tail;
  buffer.backward_ = backward;
  return buffer;
}

RingBuffer::RingBuffer(RingBuffer&& other) noexcept
    : fd_(other.fd_),
      base_(other.base_),
      mapped_size_(other.mapped_size_),
      data_(other.data_),
      data_size_(other.data_size_),
      tail_(other.tail_),
      backward_(other.backward_),
      snapshot_head_(other.snapshot_head_),
      scratch_(std::move(other.scratch_)) {
  other.base_ = nullptr;
  other.mapped_size_ = 0;
}

RingBuffer::~RingBuffer() {
  if (base_) ::munmap(base_, mapped_size_);
}

uint64_t RingBuffer::head() const {
  auto* meta = static_cast<perf_event_mmap_page*>(base_);
  // Acquire: the records before data_head are fully written once we see it.
  return __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
}

void RingBuffer::set_tail(uint64_t tail) {
  auto* meta = static_cast<perf_event_mmap_page*>(base_);
  // Release: our reads of the records are done before the kernel may overwrite them.
  __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

void RingBuffer::pause(bool paused) const {
  // Without the pause the kernel could overwrite the records being copied.
  (void)::ioctl(fd_, PERF_EVENT_IOC_PAUSE_OUTPUT, paused ? 1 : 0);
}

void RingBuffer::copy_out(uint64_t position, size_t size, std::vector<unsigned char>& into) const {
  into.resize(size);
  size_t offset = static_cast<size_t>(position & (data_size_ - 1));
  size_t first = std::min(size, data_size_ - offset);
  std::copy(data_ + offset, data_ + offset + first, into.data());
  std::copy(data_, data_ + (size - first), into.data() + first);
}

}  // namespace sonde::kernel
