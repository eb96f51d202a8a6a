#include "events/syntax.hpp"

#include <algorithm>

namespace sonde::events {

std::string format_syntax_error(std::string_view text, const SyntaxError& error) {
  // Long arguments are cut around the error, as perf does, so that the caret stays on screen;
  // control characters are shown as '?' so that they cannot break the two-line shape.
  constexpr size_t kWindow = 70;
  size_t pos = std::min(error.pos, text.size());
  std::string shown(text);
  size_t caret = pos;
  if (text.size() > kWindow + 10) {
    size_t start = pos > kWindow / 2 ? std::min(pos - kWindow / 2, text.size() - kWindow) : 0;
    shown = start ? ".." : "";
    shown += text.substr(start, kWindow);
    if (start + kWindow < text.size()) shown += "..";
    caret = pos - start + (start ? 2 : 0);
  }
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  std::string message = error.message;
  std::replace(message.begin(), message.end(), '\n', ' ');
  constexpr std::string_view kPrefix = "event syntax error: '";
  return fmt::format("{}{}'\n{}\\___ {}", kPrefix, shown, std::string(kPrefix.size() + caret, ' '), message);
}

}  // namespace sonde::events
