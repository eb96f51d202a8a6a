#pragma once
// Shared by the collapse and flamegraph end-to-end tests: the committed collapse fixtures
// (tests/fixtures/collapse) and whole-file reads.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace sonde::test {

inline const std::string kCollapseFixtures =
    (std::filesystem::path(__FILE__).parent_path() / "../fixtures/collapse").lexically_normal().string();

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace sonde::test
