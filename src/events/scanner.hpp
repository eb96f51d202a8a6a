#pragma once
// The character-level half of the -e parser: a cursor over the argument that hands out the
// lexemes perf's syntax is made of (names, numbers, punctuation) with their positions. perf's
// syntax is context dependent ("cycles:u" and "sched:sched_switch" differ only in what the
// first name means), so the parser asks for the lexeme it expects next instead of
// tokenizing ahead.
#include <cctype>
#include <string_view>

namespace sonde::events {

class Scanner {
 public:
  explicit Scanner(std::string_view text, size_t base = 0) : text_(text), base_(base) {}

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  // Position in the whole -e argument (base_ lets a scanner run over a slice of it).
  size_t pos() const { return base_ + pos_; }
  std::string_view rest() const { return text_.substr(pos_); }

  bool take(char c) {
    if (peek() != c || at_end()) return false;
    ++pos_;
    return true;
  }
  void skip_spaces() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  // An event, PMU or tracepoint name: letters, digits, '_', '-', '.', and glob characters.
  std::string_view name() {
    return take_while([](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '*' ||
             c == '?' || c == '[' || c == ']';
    });
  }
  // A term name inside pmu/.../: letters, digits, '_', '-', '.'.
  std::string_view term_name() {
    return take_while([](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
  }
  // A term value: a number or a word ("fp", "foo.bar").
  std::string_view term_value() {
    return take_while([](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':' ||
             c == '*' || c == '?';
    });
  }
  // Modifier letters after ':' (validated by the caller, so that a wrong letter is named).
  std::string_view letters() {
    return take_while([](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
  }
  // Text up to (not including) `c`, or to the end.
  std::string_view until(char c) {
    return take_while([c](char x) { return x != c; });
  }

 private:
  template <typename Predicate>
  std::string_view take_while(Predicate predicate) {
    size_t start = pos_;
    while (!at_end() && predicate(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  std::string_view text_;
  size_t base_ = 0;
  size_t pos_ = 0;
};

}  // namespace sonde::events
