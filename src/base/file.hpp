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
Result<void> write_file(const std::string& path, std::string_view content);

}  // namespace sonde
