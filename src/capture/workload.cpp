#include "capture/workload.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>

namespace sonde::capture {

namespace {
void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}
}  // namespace

Result<Workload> Workload::prepare(const std::vector<std::string>& argv, bool stdout_to_stderr) {
  if (argv.empty()) return fail("no command given to run");
  int go[2], error[2];
  if (::pipe2(go, O_CLOEXEC) != 0) return failf("pipe: {}", errno_text(errno));
  if (::pipe2(error, O_CLOEXEC) != 0) {
    ::close(go[0]);
    ::close(go[1]);
    return failf("pipe: {}", errno_text(errno));
  }
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) return failf("fork: {}", errno_text(errno));
  if (pid == 0) {
    // The child: default signal handling, then wait for the go byte or the parent's exit.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    ::close(go[1]);
    ::close(error[0]);
    if (stdout_to_stderr) ::dup2(STDERR_FILENO, STDOUT_FILENO);
    char byte;
    if (::read(go[0], &byte, 1) != 1) _exit(127);
    ::execvp(args[0], args.data());
    int err = errno;
    if (::write(error[1], &err, sizeof err) < 0) _exit(127);
    _exit(127);
  }
  ::close(go[0]);
  ::close(error[1]);
  Workload workload;
  workload.pid_ = pid;
  workload.go_fd_ = go[1];
  workload.error_fd_ = error[0];
  workload.command_ = argv[0];
  return workload;
}

Workload::Workload(Workload&& other) noexcept
    : pid_(other.pid_),
      go_fd_(other.go_fd_),
      error_fd_(other.error_fd_),
      command_(std::move(other.command_)),
      ended_(other.ended_),
      status_(other.status_),
      usage_(other.usage_) {
  other.pid_ = -1;
  other.go_fd_ = -1;
  other.error_fd_ = -1;
}

Workload::~Workload() {
  close_fd(go_fd_);
  close_fd(error_fd_);
  if (pid_ > 0 && !ended_) {
    // Never leave a held child behind: closing go_fd_ made it exit; collect it.
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

Result<void> Workload::start() {
  char byte = 1;
  if (::write(go_fd_, &byte, 1) != 1) {
    // EPIPE: the held child is gone already (a Ctrl-C before it could exec).
    int err = errno;
    wait();
    return tl::unexpected(Error{err == EPIPE ? "the command was stopped before it started"
                                             : "cannot start the workload: " + errno_text(err),
                                Error::Kind::command_ended, err, exit_status()});
  }
  close_fd(go_fd_);
  int err = 0;
  ssize_t n;
  do n = ::read(error_fd_, &err, sizeof err);
  while (n < 0 && errno == EINTR);
  close_fd(error_fd_);
  if (n == static_cast<ssize_t>(sizeof err)) {
    wait();
    std::string message = err == ENOENT ? fmt::format("cannot run '{}': command not found", command_)
                                        : fmt::format("cannot run '{}': {}", command_, errno_text(err));
    return tl::unexpected(Error{std::move(message), Error::Kind::cannot_run, err});
  }
  return {};
}

int Workload::wait() {
  if (ended_) return status_;
  while (::wait4(pid_, &status_, 0, &usage_) < 0) {
    if (errno != EINTR) {  // ECHILD: reaped by someone else; its status is lost
      status_ = 0;
      break;
    }
  }
  ended_ = true;
  return status_;
}

namespace {
// Waits up to `limit` for the child to end.
bool reap_within(Workload& workload, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!workload.reap()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    ::usleep(5000);
  }
  return true;
}
}  // namespace

void Workload::stop(bool signalled_by_terminal) {
  if (reap()) return;
  if (signalled_by_terminal && reap_within(*this, std::chrono::milliseconds(1000))) return;
  ::kill(pid_, SIGTERM);
  if (reap_within(*this, std::chrono::milliseconds(1000))) return;
  ::kill(pid_, SIGKILL);
  wait();
}

bool Workload::reap() {
  if (ended_) return true;
  pid_t result = ::wait4(pid_, &status_, WNOHANG, &usage_);
  if (result == pid_ || (result < 0 && errno == ECHILD)) ended_ = true;
  return ended_;
}

int Workload::exit_status() const {
  if (WIFEXITED(status_)) return WEXITSTATUS(status_);
  if (WIFSIGNALED(status_)) return 128 + WTERMSIG(status_);
  return 1;
}

}  // namespace sonde::capture
