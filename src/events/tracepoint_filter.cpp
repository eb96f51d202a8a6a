#include "events/tracepoint_filter.hpp"

#include <cctype>
#include <functional>
#include <optional>

#include "base/strings.hpp"
#include "kernel/tracefs.hpp"

namespace sonde::events {

namespace {

bool identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
// Where a bare operand ends, as the kernel's filter parser reads one.
bool ends_bare_word(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')' || c == '&' || c == '|';
}

// The rewrite, with `is_string_field` deciding which fields' operands are quoted: it is asked only
// of a field compared with a bare word.
std::string quote_operands(std::string_view text,
                           const std::function<bool(std::string_view)>& is_string_field) {
  std::string out;
  out.reserve(text.size() + 8);
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '"' || c == '\'') {  // a quoted string, escapes included, as it is
      size_t end = i + 1;
      while (end < text.size() && text[end] != c) end += text[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, text.size());
      out.append(text.substr(i, end - i));
      i = end;
      continue;
    }
    if (!identifier_start(c) || (i > 0 && identifier_char(text[i - 1]))) {
      out.push_back(c);
      ++i;
      continue;
    }
    size_t name_end = i;
    while (name_end < text.size() && identifier_char(text[name_end])) ++name_end;
    std::string_view name = text.substr(i, name_end - i);
    size_t op = name_end;
    while (op < text.size() && text[op] == ' ') ++op;
    size_t op_size = text.substr(op, 2) == "==" || text.substr(op, 2) == "!=" ? 2
                     : text.substr(op, 1) == "~"                              ? 1
                                                                              : 0;
    size_t word = op + op_size;
    while (word < text.size() && text[word] == ' ') ++word;
    size_t word_end = word;
    while (word_end < text.size() && !ends_bare_word(text[word_end])) ++word_end;
    std::string_view operand = text.substr(word, word_end - word);
    bool bare = op_size > 0 && !operand.empty() && operand.front() != '"' && operand.front() != '\'' &&
                operand.find('"') == std::string_view::npos;
    if (!bare || !is_string_field(name)) {
      out.append(name);
      i = name_end;
      continue;
    }
    out.append(text.substr(i, word - i));
    out.push_back('"');
    out.append(operand);
    out.push_back('"');
    i = word_end;
  }
  return out;
}

}  // namespace

std::string quote_bare_string_operands(std::string_view filter,
                                       const std::unordered_set<std::string>& string_fields) {
  return quote_operands(filter,
                        [&](std::string_view name) { return string_fields.count(std::string(name)) > 0; });
}

std::unordered_set<std::string> string_fields_of_format(std::string_view format) {
  std::unordered_set<std::string> fields;
  for (std::string_view line : split(format, '\n')) {
    size_t start = line.find("field:");
    size_t end = line.find(';');
    if (start == std::string_view::npos || end == std::string_view::npos || end < start) continue;
    std::string_view declaration = trim(line.substr(start + 6, end - start - 6));
    if (declaration.find("char") == std::string_view::npos) continue;
    bool string =
        declaration.find('[') != std::string_view::npos || declaration.find('*') != std::string_view::npos;
    if (!string) continue;
    // The name is the last word, before a trailing "[N]" ("char comm[16]", "__data_loc char[] name").
    std::string_view name = declaration;
    if (name.ends_with(']')) name = trim(name.substr(0, name.rfind('[')));
    size_t space = name.find_last_of(" *");
    if (space != std::string_view::npos) name = name.substr(space + 1);
    if (!name.empty()) fields.emplace(name);
  }
  return fields;
}

Result<void> set_tracepoint_filter(EventSpec& event, const std::string& filter) {
  // The format is read the first time a field is compared with a bare word, if ever.
  std::optional<Result<std::string>> format;
  std::unordered_set<std::string> fields;
  std::string rewritten = quote_operands(filter, [&](std::string_view name) {
    if (!format) {
      format = kernel::tracepoint_format(event.tracepoint_system, event.tracepoint_name);
      if (*format) fields = string_fields_of_format(**format);
      // The kernel's own fields of every event: the task's comm is a string.
      fields.insert({"comm", "COMM"});
    }
    return fields.count(std::string(name)) > 0;
  });
  if (format && !*format) return tl::unexpected(format->error());
  event.filter = std::move(rewritten);
  return {};
}

}  // namespace sonde::events
