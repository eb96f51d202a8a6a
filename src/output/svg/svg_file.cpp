#include "output/svg/svg_file.hpp"

#include <unistd.h>

#include <cerrno>

#include "base/file.hpp"

namespace sonde::output {

Result<void> write_document(const std::string& path, std::string_view content) {
  if (path.empty() || path == "-") {
    if (!write_all(STDOUT_FILENO, content)) return failf("cannot write to stdout: {}", errno_text(errno));
    return {};
  }
  return replace_file(path, content);
}

}  // namespace sonde::output
