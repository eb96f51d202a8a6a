#pragma once
// A directory for a unit test binary's files, made on first use and removed when it exits.
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace sonde::test {

inline const std::string& unit_temp_dir() {
  struct Directory {
    std::string path;
    Directory() {
      char tmpl[] = "/tmp/sonde-unit-XXXXXX";
      path = ::mkdtemp(tmpl) ? tmpl : "";
    }
    ~Directory() {
      std::error_code ignored;
      if (!path.empty()) std::filesystem::remove_all(path, ignored);
    }
  };
  static Directory directory;
  return directory.path;
}

}  // namespace sonde::test
