#include "capture/control_channel.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "base/strings.hpp"

namespace sonde::capture {

namespace {

constexpr std::string_view kUsage = "give --control fifo:CTL-FIFO[,ACK-FIFO] or --control fd:CTL-FD[,ACK-FD]";

Result<int> descriptor_number(std::string_view text) {
  auto number = parse_uint(text, 10);
  if (!number || *number > 1000000) return failf("bad --control descriptor '{}'; {}", text, kUsage);
  int fd = static_cast<int>(*number);
  if (::fcntl(fd, F_GETFD) < 0) return failf("--control descriptor {} is not open; {}", fd, kUsage);
  return fd;
}

}  // namespace

// Out of line: g++ 12 misreads the inlined destructor inside a Result as freeing a bad pointer.
ControlChannel::ControlChannel(ControlChannel&&) noexcept = default;
ControlChannel& ControlChannel::operator=(ControlChannel&&) noexcept = default;
ControlChannel::~ControlChannel() = default;

Result<ControlChannel> ControlChannel::open(std::string_view spec) {
  ControlChannel channel;
  auto colon = spec.find(':');
  std::string_view kind = colon == std::string_view::npos ? spec : spec.substr(0, colon);
  auto parts =
      colon == std::string_view::npos ? std::vector<std::string>{} : split(spec.substr(colon + 1), ',');
  if ((kind != "fifo" && kind != "fd") || parts.empty() || parts.size() > 2 || parts[0].empty())
    return failf("bad --control '{}'; {}", spec, kUsage);
  if (kind == "fd") {
    auto control = descriptor_number(parts[0]);
    if (!control) return tl::unexpected(control.error());
    // Our own copies, so the caller's descriptors stay as they were.
    channel.control_ = UniqueFd(::fcntl(*control, F_DUPFD_CLOEXEC, 3));
    if (parts.size() == 2) {
      auto ack = descriptor_number(parts[1]);
      if (!ack) return tl::unexpected(ack.error());
      channel.ack_ = UniqueFd(::fcntl(*ack, F_DUPFD_CLOEXEC, 3));
    }
  } else {
    // Read and write, as perf opens them: no writer yet is not an end of file.
    channel.control_ = UniqueFd(::open(parts[0].c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC));
    if (!channel.control_)
      return failf("cannot open the --control FIFO {}: {}; create it with mkfifo", parts[0],
                   errno_text(errno));
    if (parts.size() == 2) {
      channel.ack_ = UniqueFd(::open(parts[1].c_str(), O_RDWR | O_CLOEXEC));
      if (!channel.ack_)
        return failf("cannot open the --control ack FIFO {}: {}; create it with mkfifo", parts[1],
                     errno_text(errno));
    }
  }
  int flags = ::fcntl(channel.control_.get(), F_GETFL);
  ::fcntl(channel.control_.get(), F_SETFL, flags | O_NONBLOCK);
  return channel;
}

std::optional<ControlCommand> ControlChannel::next() {
  char buffer[256];
  while (true) {
    ssize_t got = ::read(control_.get(), buffer, sizeof buffer);
    if (got <= 0) break;
    pending_.append(buffer, static_cast<size_t>(got));
  }
  while (true) {
    // A command ends at a newline or a NUL, as perf reads them.
    auto end = pending_.find_first_of(std::string_view("\n\0", 2));
    if (end == std::string::npos) return std::nullopt;
    std::string line(trim(std::string_view(pending_).substr(0, end)));
    pending_.erase(0, end + 1);
    if (line == "enable") return ControlCommand::enable;
    if (line == "disable") return ControlCommand::disable;
    if (line == "snapshot") return ControlCommand::snapshot;
    if (line == "stop") return ControlCommand::stop;
    if (line == "ping") return ControlCommand::ping;
  }
}

Result<bool> ControlChannel::serve(const std::function<Result<void>(bool enable)>& set_enabled) {
  bool stop = false;
  for (auto command = next(); command; command = next()) {
    if (*command == ControlCommand::enable || *command == ControlCommand::disable)
      if (auto set = set_enabled(*command == ControlCommand::enable); !set)
        return tl::unexpected(set.error());
    stop = stop || *command == ControlCommand::stop;
    acknowledge();
  }
  return stop;
}

void ControlChannel::acknowledge() {
  if (!ack_) return;
  static constexpr char kAck[] = "ack\n";  // with its NUL, as perf writes sizeof the tag
  [[maybe_unused]] ssize_t written = ::write(ack_.get(), kAck, sizeof kAck);
}

}  // namespace sonde::capture
