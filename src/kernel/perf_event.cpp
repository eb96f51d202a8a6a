#include "kernel/perf_event.hpp"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <ctime>

#include "base/strings.hpp"

namespace sonde::kernel {

namespace {

Result<void> ioctl_result(int fd, unsigned long request, unsigned long arg, const char* what) {
  if (::ioctl(fd, request, arg) < 0) return failf("{} on perf event: {}", what, errno_text(errno));
  return {};
}
}  // namespace

PerfEventFd& PerfEventFd::operator=(PerfEventFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

PerfEventFd::~PerfEventFd() {
  if (fd_ >= 0) ::close(fd_);
}

Result<PerfEventFd> PerfEventFd::open(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd,
                                      unsigned long flags) {
  long fd = ::syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC | flags);
  if (fd < 0) return fail_errno(errno, "perf_event_open failed");
  return PerfEventFd(static_cast<int>(fd));
}

Result<void> PerfEventFd::enable() const { return ioctl_result(fd_, PERF_EVENT_IOC_ENABLE, 0, "enable"); }
Result<void> PerfEventFd::disable() const { return ioctl_result(fd_, PERF_EVENT_IOC_DISABLE, 0, "disable"); }
Result<void> PerfEventFd::reset() const { return ioctl_result(fd_, PERF_EVENT_IOC_RESET, 0, "reset"); }

Result<void> PerfEventFd::set_filter(const std::string& filter) const {
  if (::ioctl(fd_, PERF_EVENT_IOC_SET_FILTER, filter.c_str()) < 0)
    return failf("the kernel refused the filter '{}': {}", filter, errno_text(errno));
  return {};
}

Result<void> PerfEventFd::set_bpf(int prog_fd) const {
  return ioctl_result(fd_, PERF_EVENT_IOC_SET_BPF, static_cast<unsigned long>(prog_fd), "attach BPF");
}

Result<uint64_t> PerfEventFd::id() const {
  uint64_t value = 0;
  if (::ioctl(fd_, PERF_EVENT_IOC_ID, &value) < 0) return failf("PERF_EVENT_IOC_ID: {}", errno_text(errno));
  return value;
}

Result<CounterReading> PerfEventFd::read_counter() const {
  uint64_t values[3] = {};
  ssize_t n = ::read(fd_, values, sizeof values);
  if (n != static_cast<ssize_t>(sizeof values))
    return failf("reading a counter: {}", n < 0 ? errno_text(errno) : "short read");
  return CounterReading{values[0], values[1], values[2]};
}

Result<int> parse_clockid(std::string_view name) {
  struct Clock {
    const char* name;
    const char* short_name;
    int id;
  };
  static constexpr Clock kClocks[] = {{"monotonic", "mono", CLOCK_MONOTONIC},
                                      {"monotonic_raw", "raw", CLOCK_MONOTONIC_RAW},
                                      {"realtime", "real", CLOCK_REALTIME},
                                      {"boottime", "boot", CLOCK_BOOTTIME},
                                      {"tai", "tai", CLOCK_TAI}};
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view text = lower;
  if (text.starts_with("clock_")) text.remove_prefix(6);
  for (const auto& clock : kClocks)
    if (text == clock.name || text == clock.short_name) return clock.id;
  if (auto number = parse_uint(text, 10); number && *number < 64) return static_cast<int>(*number);
  return failf(
      "unknown clock '{}' for -k; give monotonic, monotonic_raw, realtime, boottime, tai or a number", name);
}

}  // namespace sonde::kernel
