// What the fuzz targets share: an input as a file the readers open by path (a memfd reused across
// runs, as /proc/self/fd/N), an invariant check that aborts with a message libFuzzer keeps, and
// the directory of the bundled fixtures (SONDE_FUZZ_DATA_DIR, set by both CMake projects).
#pragma once
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace sonde::fuzz {

// The bytes as the content of one memfd (the same one every run): returns its path, or "" when
// the memfd cannot be written (then the run is skipped, never reported as a find).
inline std::string as_file(const uint8_t* data, size_t size, const char* name) {
  static int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, 0) != 0) return {};
  size_t written = 0;
  while (written < size) {
    ssize_t n = ::pwrite(fd, data + written, size - written, static_cast<off_t>(written));
    if (n <= 0) return {};
    written += static_cast<size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

// The bytes as the content of a real file under /tmp (the same one every run), for readers that
// resolve the path they are given (probe names the binary by its canonical path, which a
// memfd's "/memfd:... (deleted)" is not). Removed when the process exits.
inline std::string as_named_file(const uint8_t* data, size_t size, const char* name) {
  static std::string path = [name] {
    std::string pattern = std::string("/tmp/") + name + "-XXXXXX";
    int fd = ::mkstemp(pattern.data());
    if (fd < 0) return std::string();
    ::close(fd);
    static std::string removed_at_exit;
    removed_at_exit = pattern;
    std::atexit([] { ::unlink(removed_at_exit.c_str()); });
    return pattern;
  }();
  if (path.empty()) return {};
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return {};
  size_t written = 0;
  while (written < size) {
    ssize_t n = ::write(fd, data + written, size - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  ::close(fd);
  return written == size ? path : std::string();
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A broken invariant is a find: abort so that libFuzzer saves the input.
inline void require(bool holds, const char* target, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "%s fuzzer: invariant broken: %s\n", target, what);
  std::abort();
}

inline std::string data_path(std::string_view name) {
  return std::string(SONDE_FUZZ_DATA_DIR) + "/" + std::string(name);
}

}  // namespace sonde::fuzz
