#pragma once
// A syntax error inside one -e argument: where (a character index into the argument) and what.
// The parser's passes return these; parse_events turns one into perf's two-line message.
#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <utility>

namespace sonde::events {

struct SyntaxError {
  size_t pos = 0;
  std::string message;
};

template <typename T = void>
using Parsed = tl::expected<T, SyntaxError>;

template <typename... Args>
tl::unexpected<SyntaxError> syntax_error(size_t pos, fmt::format_string<Args...> format, Args&&... args) {
  return tl::unexpected<SyntaxError>(SyntaxError{pos, fmt::format(format, std::forward<Args>(args)...)});
}

// perf's shape:
//   event syntax error: 'cycles:xz'
//                               \___ unknown modifier 'x'
std::string format_syntax_error(std::string_view text, const SyntaxError& error);

}  // namespace sonde::events
