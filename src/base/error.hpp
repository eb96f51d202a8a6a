#pragma once
// Result<T>: a value or an Error that says what failed and what to do, carried up to the
// command, which prints it as one line and picks the exit status (cli/ only). Errors gather
// context as they travel (with_context).
#include <fmt/format.h>

#include <string>
#include <tl/expected.hpp>
#include <utility>

namespace sonde {

struct Error {
  // What kind of failure this is; the command turns it into an exit status.
  enum class Kind {
    failed,         // the work could not be done (exit 1)
    usage,          // the request itself is malformed: options, specs, field lists (exit 129)
    cannot_run,     // the command to run could not be started (127, or 126 when not executable)
    command_ended,  // the command to run ended before it started: sonde exits with its status
  };

  std::string message;
  Kind kind = Kind::failed;
  int sys_errno = 0;       // errno of the system call that failed, 0 when none did
  int command_status = 0;  // with Kind::command_ended: the command's exit status

  Error with_context(std::string_view context) const {
    return Error{fmt::format("{}: {}", context, message), kind, sys_errno, command_status};
  }
};

// tl::expected, but a result cannot be dropped unread.
template <typename T = void>
class [[nodiscard]] Result : public tl::expected<T, Error> {
 public:
  using tl::expected<T, Error>::expected;
  Result(tl::expected<T, Error> other)
      : tl::expected<T, Error>(std::move(other)) {}  // NOLINT: from map()/and_then()
};

inline tl::unexpected<Error> fail(std::string message) {
  return tl::unexpected<Error>(Error{std::move(message)});
}
inline tl::unexpected<Error> fail_usage(std::string message) {
  return tl::unexpected<Error>(Error{std::move(message), Error::Kind::usage});
}
// A failure that carries an errno (callers that exit with it) but whose message is complete.
inline tl::unexpected<Error> fail_with(int err, std::string message) {
  return tl::unexpected<Error>(Error{std::move(message), Error::Kind::failed, err});
}
// A failed system call: `message` says what was attempted; errno_text(err) is appended.
tl::unexpected<Error> fail_errno(int err, std::string_view message);

template <typename... Args>
tl::unexpected<Error> failf(fmt::format_string<Args...> format, Args&&... args) {
  return fail(fmt::format(format, std::forward<Args>(args)...));
}

// errno as text, for messages that name a failed system call.
std::string errno_text(int err);

}  // namespace sonde
