#include "ftrace/raw_capture.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::ftrace {

namespace {

// Reading the buffer every so often even when poll() has not said it is filled past
// buffer_percent keeps the files growing in step with the trace.
constexpr int kPollMilliseconds = 200;
constexpr int kPipeBytes = 1 << 20;

Result<void> write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return tl::unexpected(
          Error{fmt::format("writing trace data failed: {}", errno_text(errno)), Error::Kind::failed, errno});
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<RawCapture>> RawCapture::start(const Instance& instance, const std::vector<int>& cpus,
                                                      const std::string& prefix, size_t page_size) {
  std::unique_ptr<RawCapture> capture(new RawCapture);
  capture->page_size_ = page_size;
  capture->stop_event_ = UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!capture->stop_event_) return failf("eventfd failed: {}", errno_text(errno));
  for (int cpu : cpus) {
    auto reader = std::make_unique<Reader>();
    reader->capture.cpu = cpu;
    reader->capture.path = fmt::format("{}cpu{}", prefix, cpu);
    std::string raw_path = instance.path(fmt::format("per_cpu/cpu{}/trace_pipe_raw", cpu));
    reader->raw = UniqueFd(::open(raw_path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (!reader->raw) return failf("cannot open {}: {}", raw_path, errno_text(errno));
    if (auto anonymous = create_anonymous_file(path_directory(prefix))) {
      reader->out = std::move(*anonymous);
      reader->out_is_anonymous = true;
      reader->capture.path = fmt::format("/proc/self/fd/{}", reader->out.get());
    } else {
      // A predictable name beside the output: made afresh, never through what is there.
      auto out = create_temporary_file(reader->capture.path);
      if (!out) return tl::unexpected(out.error());
      reader->out = std::move(*out);
    }
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return failf("pipe failed: {}", errno_text(errno));
    reader->pipe_read = UniqueFd(fds[0]);
    reader->pipe_write = UniqueFd(fds[1]);
    int size = ::fcntl(fds[1], F_SETPIPE_SZ, kPipeBytes);
    if (size < 0) size = ::fcntl(fds[1], F_GETPIPE_SZ);
    reader->pipe_size = size > 0 ? static_cast<size_t>(size) : page_size;
    capture->readers_.push_back(std::move(reader));
  }
  for (auto& reader : capture->readers_) {
    Reader* r = reader.get();
    RawCapture* self = capture.get();
    r->thread = std::thread([self, r] { self->run(*r); });
  }
  return capture;
}

RawCapture::~RawCapture() {
  if (!finished_) finish();
  if (!keep_files_)
    for (auto& reader : readers_)
      if (!reader->out_is_anonymous) ::unlink(reader->capture.path.c_str());
}

void RawCapture::run(Reader& reader) {
  pollfd fds[2] = {{reader.raw.get(), POLLIN, 0}, {stop_event_.get(), POLLIN, 0}};
  while (true) {
    int ready = ::poll(fds, 2, kPollMilliseconds);
    if (ready < 0 && errno != EINTR) {
      reader.capture.error = Error{
          fmt::format("poll on cpu{} trace_pipe_raw failed: {}", reader.capture.cpu, errno_text(errno))};
      break;
    }
    if (auto moved = move_full_pages(reader); !moved) {
      if (is_out_of_space(moved.error().sys_errno)) return keep_whole_pages(reader);
      reader.capture.error = moved.error();
      return;
    }
    if (fds[1].revents & POLLIN) break;
  }
  if (auto drained = drain(reader); !drained) {
    if (is_out_of_space(drained.error().sys_errno)) return keep_whole_pages(reader);
    reader.capture.error = drained.error();
  }
}

void RawCapture::keep_whole_pages(Reader& reader) {
  // A write cut short leaves part of a page; the file keeps the whole pages before it.
  struct stat st {};
  uint64_t size =
      ::fstat(reader.out.get(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : reader.capture.bytes;
  size -= size % page_size_;
  if (::ftruncate(reader.out.get(), static_cast<off_t>(size)) != 0) size = reader.capture.bytes;
  reader.capture.bytes = size;
  reader.capture.out_of_space = true;
  out_of_space_ = true;
}

Result<void> RawCapture::move_full_pages(Reader& reader) {
  // splice hands over only whole pages the writer has left; EAGAIN when there are none.
  while (true) {
    ssize_t in = ::splice(reader.raw.get(), nullptr, reader.pipe_write.get(), nullptr, reader.pipe_size,
                          SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (in < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return {};
      return failf("splice from cpu{} trace_pipe_raw failed: {}", reader.capture.cpu, errno_text(errno));
    }
    if (in == 0) return {};
    size_t left = static_cast<size_t>(in);
    while (left > 0) {
      ssize_t out = ::splice(reader.pipe_read.get(), nullptr, reader.out.get(), nullptr, left, SPLICE_F_MOVE);
      if (out < 0 && errno == EINTR) continue;
      if (out <= 0) {
        // A file system without splice support: copy through memory instead.
        std::vector<char> buffer(left);
        ssize_t got = ::read(reader.pipe_read.get(), buffer.data(), left);
        if (got <= 0)
          return failf("reading the splice pipe of cpu{} failed: {}", reader.capture.cpu, errno_text(errno));
        if (auto written = write_all(reader.out.get(), buffer.data(), static_cast<size_t>(got)); !written)
          return written;
        out = got;
      }
      left -= static_cast<size_t>(out);
      reader.capture.bytes += static_cast<uint64_t>(out);
    }
  }
}

Result<void> RawCapture::drain(Reader& reader) {
  if (auto moved = move_full_pages(reader); !moved) return moved;
  // The page the writer was still filling: read(2) hands it over as a whole page too.
  std::vector<char> page(page_size_);
  while (true) {
    ssize_t n = ::read(reader.raw.get(), page.data(), page.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return {};
    if (n < 0) return failf("reading cpu{} trace_pipe_raw failed: {}", reader.capture.cpu, errno_text(errno));
    if (n == 0) return {};
    // A short read still stands for a page; pad it so the file stays a sequence of pages.
    std::fill(page.begin() + n, page.end(), 0);
    if (auto written = write_all(reader.out.get(), page.data(), page.size()); !written) return written;
    reader.capture.bytes += page.size();
  }
}

std::vector<CpuCapture> RawCapture::finish() {
  finished_ = true;
  uint64_t one = 1;
  (void)!::write(stop_event_.get(), &one, sizeof one);
  std::vector<CpuCapture> captures;
  for (auto& reader : readers_) {
    if (reader->thread.joinable()) reader->thread.join();
    reader->raw.reset();
    if (reader->out_is_anonymous)
      reader->capture.anonymous = std::make_shared<UniqueFd>(std::move(reader->out));
    reader->out.reset();
    captures.push_back(reader->capture);
  }
  return captures;
}

}  // namespace sonde::ftrace
