#include "analysis/trace/traced_processes.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "base/file.hpp"
#include "base/strings.hpp"

namespace sonde::analysis {

std::string_view TracedProcesses::fd_path(pid_t pid, int fd) {
  if (fd < 0) return {};
  auto& fds = processes_[pid].fds;
  auto found = fds.find(fd);
  if (found != fds.end()) return found->second;
  // Not opened while traced: ask /proc once, as perf does (the process may be gone: then "").
  if (!live_) return fds[fd];
  char target[4096];
  ssize_t length = ::readlink(fmt::format("/proc/{}/fd/{}", pid, fd).c_str(), target, sizeof target);
  auto& path = fds[fd];
  if (length > 0) path.assign(target, static_cast<size_t>(length));
  return path;
}

std::string_view TracedProcesses::comm(pid_t tid) {
  auto found = comms_.find(tid);
  if (found != comms_.end()) return found->second;
  // A recording's pid 0 is the idle task, as perf names it reading a file.
  if (tid == 0) return live_ ? std::string_view() : std::string_view("swapper");
  // A task the trace has not seen (a parent outside it): /proc while it lives, asked once.
  auto& comm = comms_[tid];
  if (!live_) return comm;
  if (auto text = read_file(fmt::format("/proc/{}/comm", tid))) comm = std::string(trim(*text));
  return comm;
}

void TracedProcesses::set_comm(pid_t tid, std::string_view comm) {
  auto& slot = comms_[tid];
  if (slot != comm) slot.assign(comm);
}

void TracedProcesses::inherit_comm(pid_t child, std::string_view parent_comm) {
  comms_.try_emplace(child, parent_comm);
}

void TracedProcesses::apply(pid_t pid, std::string_view syscall, const std::array<uint64_t, 6>& args,
                            std::optional<std::string_view> path_argument, int64_t ret) {
  if (ret < 0) return;
  auto fd_of = [](uint64_t value) { return static_cast<int>(static_cast<int32_t>(value)); };
  if (syscall == "open" || syscall == "openat" || syscall == "openat2" || syscall == "creat") {
    if (path_argument)
      processes_[pid].fds[static_cast<int>(ret)] = std::string(*path_argument);
    else
      processes_[pid].fds.erase(static_cast<int>(ret));
  } else if (syscall == "close") {
    processes_[pid].fds.erase(fd_of(args[0]));
  } else if (syscall == "dup" || syscall == "dup2" || syscall == "dup3" ||
             (syscall == "fcntl" && (args[1] == F_DUPFD || args[1] == F_DUPFD_CLOEXEC))) {
    auto& fds = processes_[pid].fds;
    auto found = fds.find(fd_of(args[0]));
    if (found != fds.end()) {
      std::string path = found->second;
      fds[static_cast<int>(ret)] = std::move(path);
    } else {
      fds.erase(static_cast<int>(ret));
    }
  } else if (syscall == "execve" || syscall == "execveat") {
    // close-on-exec descriptors are gone; which ones is not known here, so ask /proc again.
    processes_[pid].fds.clear();
  }
}

}  // namespace sonde::analysis
