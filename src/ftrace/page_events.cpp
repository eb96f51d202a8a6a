#include "ftrace/page_events.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <vector>

// kbuffer.h has no extern "C" of its own.
extern "C" {
#include <traceevent/kbuffer.h>
}

#include "base/unique_fd.hpp"

namespace sonde::ftrace {

Result<PageCounts> count_page_events(const std::string& path, size_t page_size) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return failf("cannot open {}: {}", path, errno_text(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return failf("cannot stat {}: {}", path, errno_text(errno));
  PageCounts counts;
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) return counts;
  void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (mapped == MAP_FAILED) return failf("cannot map {}: {}", path, errno_text(errno));
  std::unique_ptr<kbuffer, void (*)(kbuffer*)> kbuf(
      kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST), kbuffer_free);
  std::vector<char> page(page_size);  // kbuffer wants a writable page
  const char* data = static_cast<const char*>(mapped);
  for (size_t offset = 0; offset + page_size <= size; offset += page_size) {
    std::copy(data + offset, data + offset + page_size, page.begin());
    ++counts.pages;
    if (kbuffer_load_subbuffer(kbuf.get(), page.data()) < 0) continue;
    int missed = kbuffer_missed_events(kbuf.get());
    if (missed > 0)
      counts.missed += static_cast<uint64_t>(missed);
    else if (missed < 0)
      counts.missed_uncounted = true;
    unsigned long long ts = 0;
    for (void* event = kbuffer_read_event(kbuf.get(), &ts); event;
         event = kbuffer_next_event(kbuf.get(), &ts))
      ++counts.events;
  }
  ::munmap(mapped, size);
  return counts;
}

}  // namespace sonde::ftrace
