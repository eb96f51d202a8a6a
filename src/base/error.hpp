#pragma once
// Result<T>: a value or an Error that says what failed and what to do, carried up to the
// command, which prints it as one line. Errors gather context as they travel (with_context).
#include <string>
#include <utility>

#include <fmt/format.h>
#include <tl/expected.hpp>

namespace sonde {

struct Error {
  std::string message;
  int exit_code = 1;  // what the command exits with when this error ends it

  Error with_context(std::string_view context) const {
    return Error{fmt::format("{}: {}", context, message), exit_code};
  }
};

template <typename T = void>
using Result = tl::expected<T, Error>;

inline tl::unexpected<Error> fail(std::string message, int exit_code = 1) {
  return tl::unexpected<Error>(Error{std::move(message), exit_code});
}

template <typename... Args>
tl::unexpected<Error> failf(fmt::format_string<Args...> format, Args&&... args) {
  return fail(fmt::format(format, std::forward<Args>(args)...));
}

// errno as text, for messages that name a failed system call.
std::string errno_text(int err);

}  // namespace sonde
