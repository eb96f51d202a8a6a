#pragma once
// Whole-file reads of small kernel files (sysfs, procfs, tracefs).
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
// The path itself (not followed) is a regular file or does not exist: a new file may be
// renamed over it. Devices, FIFOs and symlinks are written through instead.
bool is_replaceable_file(const std::string& path);
Result<void> write_file(const std::string& path, std::string_view content);

}  // namespace sonde
