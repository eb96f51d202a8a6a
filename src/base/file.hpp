#pragma once
// Whole-file reads of small kernel files (sysfs, procfs, tracefs).
#include <sys/types.h>

#include <string>
#include <vector>

#include "base/error.hpp"

namespace sonde {

Result<std::string> read_file(const std::string& path);
// The names in a directory, sorted, without "." and "..".
Result<std::vector<std::string>> list_directory(const std::string& path);
bool path_exists(const std::string& path);
bool is_directory(const std::string& path);
// A regular file with at least one byte (following symlinks): what perf keeps as FILE.old before
// writing FILE. A device such as /dev/null, a FIFO or an empty file is written over in place.
bool is_nonempty_regular_file(const std::string& path);
// All of `content` to `fd`, across short writes and EINTR; false (errno set) on an error.
bool write_all(int fd, std::string_view content);
// Writes into an existing file (a tracefs or sysfs control file).
Result<void> write_file(const std::string& path, std::string_view content);
// Writes a whole file so that a reader never sees half of it: to a temporary file beside it,
// renamed over `path` once complete, with `mode`. A device, FIFO or symlink at `path`
// (-o /dev/null, -o /dev/stdout) is written through instead: a rename would replace it.
Result<void> replace_file(const std::string& path, std::string_view content, mode_t mode = 0644);

}  // namespace sonde
