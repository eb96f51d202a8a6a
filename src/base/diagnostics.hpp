#pragma once
// Diagnostics: the one way warnings and notes travel. A layer that has something to tell the user
// that is not an error (a DSO without symbols, a tracer the kernel refused, lost samples) hands it
// to the Diagnostics it was given; the command decides where it goes. Errors are not diagnostics:
// they travel as Result<T>.
#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sonde {

class Diagnostics {
 public:
  enum class Kind { note, warning };
  struct Message {
    Kind kind;
    std::string text;  // one line, without the newline
  };
  using Sink = std::function<void(const Message&)>;

  // Keeps the messages: messages() returns them (tests, and callers that print them later).
  Diagnostics() = default;
  // Hands each message to `sink` as it comes, from whichever thread reports it (one at a time).
  explicit Diagnostics(Sink sink) : sink_(std::move(sink)) {}
  // Prints each message as one line on `stream`, after `prefix` ("sonde report: "); notes only
  // when `notes` (a command's -v).
  static Diagnostics printing_to(std::FILE* stream, std::string prefix = "", bool notes = true) {
    return Diagnostics([stream, prefix = std::move(prefix), notes](const Message& message) {
      if (message.kind == Kind::note && !notes) return;
      fmt::print(stream, "{}{}\n", prefix, message.text);
    });
  }

  Diagnostics(const Diagnostics&) = delete;
  Diagnostics& operator=(const Diagnostics&) = delete;
  Diagnostics(Diagnostics&& other) noexcept : sink_(std::move(other.sink_)), kept_(std::move(other.kept_)) {}

  void note(std::string text) { report({Kind::note, std::move(text)}); }
  void warning(std::string text) { report({Kind::warning, std::move(text)}); }
  template <typename... Args>
  void notef(fmt::format_string<Args...> format, Args&&... args) {
    note(fmt::format(format, std::forward<Args>(args)...));
  }
  template <typename... Args>
  void warningf(fmt::format_string<Args...> format, Args&&... args) {
    warning(fmt::format(format, std::forward<Args>(args)...));
  }

  // What was kept (empty when a sink takes the messages).
  std::vector<Message> messages() const {
    std::lock_guard lock(mutex_);
    return kept_;
  }
  size_t count(Kind kind) const {
    std::lock_guard lock(mutex_);
    return kind == Kind::note ? notes_ : warnings_;
  }

 private:
  void report(Message message) {
    std::lock_guard lock(mutex_);
    (message.kind == Kind::note ? notes_ : warnings_)++;
    if (sink_)
      sink_(message);
    else
      kept_.push_back(std::move(message));
  }

  Sink sink_;
  std::vector<Message> kept_;
  size_t notes_ = 0, warnings_ = 0;
  mutable std::mutex mutex_;
};

}  // namespace sonde
