#include "kernel/ring_buffer.hpp"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

namespace sonde::kernel {

Result<RingBuffer> RingBuffer::map(int fd, size_t data_pages) {
  if (data_pages == 0 || (data_pages & (data_pages - 1)) != 0)
    return failf("ring buffer size must be a power of two pages, not {}", data_pages);
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t size = (data_pages + 1) * page;
  void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
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
  return buffer;
}

RingBuffer::RingBuffer(RingBuffer&& other) noexcept
    : fd_(other.fd_),
      base_(other.base_),
      mapped_size_(other.mapped_size_),
      data_(other.data_),
      data_size_(other.data_size_),
      tail_(other.tail_),
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

}  // namespace sonde::kernel
