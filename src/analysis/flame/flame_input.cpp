#include "analysis/flame/flame_input.hpp"

#include <unistd.h>

#include <cerrno>

#include "analysis/stacks/script_text.hpp"

namespace sonde::analysis {

Result<TextInput> TextInput::open(const std::string& path) {
  TextInput input;
  if (path.empty() || path == "-") {
    input.name_ = "stdin";
    char buffer[1 << 16];
    while (true) {
      ssize_t got = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return failf("cannot read stdin: {}", errno_text(errno));
      if (got == 0) break;
      input.owned_.append(buffer, static_cast<size_t>(got));
    }
    return input;
  }
  input.name_ = path;
  auto mapped = sonde::MappedFile::open(path);
  if (!mapped) return tl::unexpected(mapped.error());
  auto bytes = mapped->bytes();
  input.mapped_view_ = std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  input.mapped_.emplace(std::move(*mapped));
  return input;
}

InputKind TextInput::kind() const {
  std::string_view bytes = text();
  if (bytes.starts_with("PERFILE2") || bytes.starts_with("PERFFILE")) return InputKind::perf_data;
  return looks_like_script_text(bytes) ? InputKind::script_text : InputKind::folded;
}

}  // namespace sonde::analysis
