#include "format/event_format_text.hpp"

#include <cctype>
#include <string>

namespace sonde::tracedat {
namespace {

bool is_text_byte(char c) { return c == '\t' || c == '\n' || (c >= 0x20 && c < 0x7f); }

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Takes `prefix` off the front of `text`.
bool consume(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return false;
  text.remove_prefix(prefix.size());
  return true;
}

// "\toffset:N;" and the like: the number up to the ';'.
bool numeric_part(std::string_view& line, std::string_view tag, bool optional) {
  if (!line.starts_with(tag)) return optional;
  line.remove_prefix(tag.size());
  size_t end = line.find(';');
  if (end == std::string_view::npos || !all_digits(line.substr(0, end))) return false;
  line.remove_prefix(end + 1);
  return true;
}

// "\tfield:DECLARATION;\toffset:N;\tsize:N;[\tsigned:N;]"
bool is_field_line(std::string_view line) {
  if (!consume(line, "\tfield:")) return false;
  size_t end = line.find(';');
  if (end == std::string_view::npos) return false;
  std::string_view declaration = line.substr(0, end);
  bool named = false;
  for (char c : declaration) named |= std::isalpha(static_cast<unsigned char>(c)) || c == '_';
  if (!named) return false;
  line.remove_prefix(end + 1);
  return numeric_part(line, "\toffset:", false) && numeric_part(line, "\tsize:", false) &&
         numeric_part(line, "\tsigned:", true) && line.find_first_not_of(" \t") == std::string_view::npos;
}

// The print fmt's text after "print fmt: ": a quoted string first, then C arguments.
bool is_print_format(std::string_view text) {
  if (!text.starts_with('"')) return false;
  std::string open;  // the brackets open, innermost last
  for (size_t at = 0; at < text.size(); ++at) {
    char c = text[at];
    if (c == '"' || c == '\'') {
      size_t close = at + 1;
      while (close < text.size() && text[close] != c) close += text[close] == '\\' ? 2 : 1;
      if (close >= text.size()) return false;
      at = close;
    } else if (c == '(' || c == '[' || c == '{') {
      open.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
    } else if (c == ')' || c == ']' || c == '}') {
      if (open.empty() || open.back() != c) return false;
      open.pop_back();
    } else if (!std::isalnum(static_cast<unsigned char>(c)) &&
               std::string_view(" !%&()*+,-./:;<=>?[]^_{|}~").find(c) == std::string_view::npos) {
      return false;  // not C (fuzzing: a '$' among the arguments crashed tep_parse_event)
    }
    if (c == '/' || c == '%') {
      // libtraceevent folds constant arguments while it parses them: "/ 0" kills it (SIGFPE).
      size_t digit = text.find_first_not_of(' ', at + 1);
      if (digit != std::string_view::npos && text[digit] == '0' &&
          (digit + 1 >= text.size() || !std::isalnum(static_cast<unsigned char>(text[digit + 1]))))
        return false;
    }
  }
  return open.empty();
}

}  // namespace

bool event_format_is_parseable(std::string_view format) {
  for (char c : format)
    if (!is_text_byte(c)) return false;
  std::string_view rest = format;
  auto next_line = [&rest]() {
    size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    return line;
  };
  std::string_view name = next_line();
  if (!consume(name, "name: ") || name.empty()) return false;
  std::string_view id = next_line();
  if (!consume(id, "ID: ") || !all_digits(id)) return false;
  if (next_line() != "format:") return false;
  while (!rest.empty()) {
    std::string_view line = next_line();
    if (line.empty()) continue;
    if (line.starts_with("\tfield:")) {
      if (!is_field_line(line)) return false;
      continue;
    }
    // The print fmt ends the format. Its strings may hold newlines (ext4's do), so it runs to the
    // end of the text, less the final newlines.
    if (!consume(line, "print fmt: ")) return false;
    std::string_view print(line.data(), static_cast<size_t>(format.data() + format.size() - line.data()));
    while (print.ends_with('\n')) print.remove_suffix(1);
    return is_print_format(print);
  }
  return true;  // no print fmt: libtraceevent parses the fields and prints them raw
}

}  // namespace sonde::tracedat
