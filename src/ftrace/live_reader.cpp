#include "ftrace/live_reader.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

extern "C" {
#include <traceevent/kbuffer.h>
}

namespace sonde::ftrace {

Result<std::unique_ptr<LiveReader>> LiveReader::open(const Instance& instance, const std::vector<int>& cpus,
                                                     size_t page_size) {
  std::unique_ptr<LiveReader> reader(new LiveReader);
  reader->page_size_ = page_size;
  for (int cpu : cpus) {
    std::string path = instance.path(fmt::format("per_cpu/cpu{}/trace_pipe_raw", cpu));
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (!fd) return failf("cannot open {}: {}", path, errno_text(errno));
    reader->cpus_.push_back({cpu, std::move(fd)});
  }
  reader->kbuf_ = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
  if (!reader->kbuf_) return fail("cannot allocate a kbuffer");
  return reader;
}

LiveReader::~LiveReader() {
  if (kbuf_) kbuffer_free(kbuf_);
}

Result<size_t> LiveReader::read_round(int timeout_ms, const std::function<void(const LiveEvent&)>& on_event) {
  std::vector<pollfd> fds;
  for (const auto& cpu : cpus_) fds.push_back({cpu.raw.get(), POLLIN, 0});
  if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR)
    return failf("poll on trace_pipe_raw failed: {}", errno_text(errno));
  pages_.clear();
  std::vector<LiveEvent> events;
  for (const auto& cpu : cpus_) {
    while (true) {
      std::vector<char> page(page_size_);
      ssize_t n = ::read(cpu.raw.get(), page.data(), page.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) break;
      if (n < 0) return failf("reading cpu{} trace_pipe_raw failed: {}", cpu.cpu, errno_text(errno));
      if (n == 0) break;
      pages_.push_back(std::move(page));
      if (kbuffer_load_subbuffer(kbuf_, pages_.back().data()) < 0) continue;
      long long missed = kbuffer_missed_events(kbuf_);
      unsigned long long ts = 0;
      for (void* data = kbuffer_read_event(kbuf_, &ts); data; data = kbuffer_next_event(kbuf_, &ts)) {
        events.push_back({cpu.cpu, ts, data, kbuffer_event_size(kbuf_), missed});
        missed = 0;
      }
    }
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const LiveEvent& a, const LiveEvent& b) { return a.ts < b.ts; });
  for (const auto& event : events) on_event(event);
  return events.size();
}

}  // namespace sonde::ftrace
