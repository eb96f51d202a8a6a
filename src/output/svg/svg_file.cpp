#include "output/svg/svg_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "base/file.hpp"

namespace sonde::output {

namespace {

bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

Result<void> write_document(const std::string& path, std::string_view content) {
  if (path.empty() || path == "-") {
    if (!write_all(STDOUT_FILENO, content)) return failf("cannot write to stdout: {}", errno_text(errno));
    return {};
  }
  // A device, FIFO or symlink (-o /dev/null, -o /dev/stdout) is written through: renaming a new
  // file over it would replace it.
  if (!is_replaceable_file(path)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return failf("cannot open {}: {}", path, errno_text(errno));
    bool ok = write_all(fd, content);
    int err = errno;
    ok = ::close(fd) == 0 && ok;
    if (!ok) return failf("cannot write {}: {}", path, errno_text(err));
    return {};
  }
  std::string temporary = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(temporary.data());
  if (fd < 0) return failf("cannot create {}: {}", temporary, errno_text(errno));
  bool ok = write_all(fd, content) && ::fchmod(fd, 0644) == 0;
  int err = errno;
  ok = ::close(fd) == 0 && ok;
  if (ok && ::rename(temporary.c_str(), path.c_str()) == 0) return {};
  if (ok) err = errno;
  ::unlink(temporary.c_str());
  return failf("cannot write {}: {}", path, errno_text(err));
}

}  // namespace sonde::output
