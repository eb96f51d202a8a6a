#include "base/file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/strings.hpp"

namespace sonde {

Result<std::string> read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return failf("cannot open {}: {}", path, errno_text(errno));
  std::string content;
  char buffer[8192];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return failf("cannot read {}: {}", path, errno_text(err));
    }
    if (n == 0) break;
    content.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return content;
}

Result<std::vector<std::string>> list_directory(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (!dir) return failf("cannot list {}: {}", path, errno_text(errno));
  std::vector<std::string> names;
  while (dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

bool path_exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

bool is_nonempty_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Result<void> write_file(const std::string& path, std::string_view content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return failf("cannot open {} for writing: {}", path, errno_text(errno));
  ssize_t n = ::write(fd, content.data(), content.size());
  int err = errno;
  ::close(fd);
  if (n < 0) return failf("cannot write {}: {}", path, errno_text(err));
  return {};
}

bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

namespace {

// The path itself (not followed) is a regular file or does not exist.
bool is_replaceable(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT;
  return S_ISREG(st.st_mode);
}

}  // namespace

Result<void> refuse_planted_link(const std::string& path) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode) || link.st_uid == ::geteuid()) return {};
  std::string dir = path_directory(path);
  struct stat parent {};
  if (::stat(dir.c_str(), &parent) != 0 || !(parent.st_mode & S_IWOTH)) return {};
  return failf(
      "'{}' is a symbolic link another user made in a directory anyone can write to; not writing "
      "through it (remove it, or name the file it points to)",
      path);
}

Result<UniqueFd> open_output_file(const std::string& path, mode_t mode) {
  if (auto refused = refuse_planted_link(path); !refused) return tl::unexpected(refused.error());
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
  if (!fd) return failf("cannot create {}: {}", path, errno_text(errno));
  // O_CREAT's mode does not apply to a file that existed.
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && ::fchmod(fd.get(), mode) != 0)
    return failf("cannot chmod {}: {}", path, errno_text(errno));
  return fd;
}

Result<uint64_t> free_bytes(const std::string& path) {
  struct statvfs fs {};
  if (::statvfs(path.c_str(), &fs) != 0)
    return failf("cannot read the free space of {}: {}", path, errno_text(errno));
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
}

Result<UniqueFd> create_temporary_file(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return failf("cannot remove the old {}: {}", path, errno_text(errno));
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return failf("cannot create {}: {}", path, errno_text(errno));
  return fd;
}

Result<UniqueFd> create_anonymous_file(const std::string& directory) {
  UniqueFd fd(::open(directory.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (!fd) return failf("cannot create a file without a name in {}: {}", directory, errno_text(errno));
  return fd;
}

Result<void> replace_file(const std::string& path, std::string_view content, mode_t mode) {
  if (auto refused = refuse_planted_link(path); !refused) return refused;
  bool through = !is_replaceable(path);
  std::string temporary = path + ".tmp-XXXXXX";
  int fd = through ? ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC) : ::mkstemp(temporary.data());
  if (fd < 0)
    return failf("cannot {} {}: {}", through ? "open" : "create", through ? path : temporary,
                 errno_text(errno));
  bool ok = write_all(fd, content) && (through || ::fchmod(fd, mode) == 0);
  int err = errno;
  ok = ::close(fd) == 0 && ok;
  if (ok && (through || ::rename(temporary.c_str(), path.c_str()) == 0)) return {};
  if (ok) err = errno;
  if (!through) ::unlink(temporary.c_str());
  return failf("cannot write {}: {}", path, errno_text(err));
}

}  // namespace sonde
