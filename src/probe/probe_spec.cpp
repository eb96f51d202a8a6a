#include "probe/probe_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "base/strings.hpp"

namespace sonde::probe {

namespace {

// The first of `chars` in `text` at or after `from` that no backslash escapes, or npos. A C++
// scope "::" is part of a name (Counter::bump), never a line separator.
size_t find_unescaped(std::string_view text, std::string_view chars, size_t from = 0) {
  for (size_t i = from; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
      continue;
    }
    if (text.substr(i, 2) == "::") {
      ++i;
      continue;
    }
    if (chars.find(text[i]) != std::string_view::npos) return i;
  }
  return std::string_view::npos;
}

std::string unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    out += text[i];
  }
  return out;
}

// Words split at whitespace no backslash escapes.
std::vector<std::string_view> split_escaped_words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i == text.size()) break;
    size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])))
      i += text[i] == '\\' ? 2 : 1;
    if (i > text.size()) i = text.size();
    words.push_back(text.substr(start, i - start));
  }
  return words;
}

bool is_c_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_c_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

auto point_error(std::string_view point, std::string_view what) {
  return fail_usage(fmt::format("bad probe point '{}': {}", point, what));
}

std::optional<unsigned long long> number(std::string_view text) { return parse_uint(text, 0); }

// [[GROUP:]EVENT=] at the front of `text`: sets the names and returns the rest.
Result<std::string_view> take_event_name(std::string_view text, ProbeSpec& spec) {
  size_t special = find_unescaped(text, ";=@+%");
  if (special == std::string_view::npos || text[special] != '=') return text;
  std::string_view names = text.substr(0, special);
  if (size_t colon = names.find(':'); colon != std::string_view::npos) {
    spec.group = std::string(names.substr(0, colon));
    names.remove_prefix(colon + 1);
    if (!is_event_name(spec.group))
      return fail_usage(fmt::format("'{}' is bad for a group name: it must be a C identifier", spec.group));
  }
  spec.event = std::string(names);
  if (!is_event_name(spec.event))
    return fail_usage(fmt::format("'{}' is bad for an event name: it must be a C identifier", spec.event));
  return text.substr(special + 1);
}

Result<ProbePoint> parse_point(std::string_view text) {
  ProbePoint point;
  // A file spec has no "+@%", one of ":;", and a '.' before it (perf's rule).
  bool file_spec = false;
  if (find_unescaped(text, "+@%") == std::string_view::npos) {
    size_t sep = find_unescaped(text, ";:");
    if (sep != std::string_view::npos && text.substr(0, sep).find('.') != std::string_view::npos)
      file_spec = true;
  }
  size_t sep = find_unescaped(text, ";:+@%");
  std::string head = unescape(text.substr(0, sep));
  if (file_spec) {
    point.file = head;
  } else {
    point.function = head;
    if (head.starts_with("0x")) {
      auto address = number(head);
      if (!address) return point_error(text, "invalid absolute address");
      point.address = *address;
    }
  }
  while (sep != std::string_view::npos) {
    char kind = text[sep];
    std::string_view rest = text.substr(sep + 1);
    if (kind == ';') {  // a lazy pattern is the last part
      point.lazy_line = std::string(rest);
      break;
    }
    size_t next = find_unescaped(rest, ";:+@%");
    std::string_view part = rest.substr(0, next);
    sep = next == std::string_view::npos ? next : sep + 1 + next;
    switch (kind) {
      case ':': {
        auto line = number(part);
        if (!line || *line > 0xffffffffu)
          return point_error(text, "there is a non-digit character in the line number");
        point.line = static_cast<unsigned>(*line);
        break;
      }
      case '+': {
        auto offset = number(part);
        if (!offset) return point_error(text, "there is a non-digit character in the offset");
        point.offset = *offset;
        break;
      }
      case '@':
        if (!point.file.empty()) return point_error(text, "SRC@SRC is not allowed");
        point.file = unescape(part);
        break;
      case '%':
        if (part != "return")
          return point_error(text, fmt::format("%{} is not supported (only %return)", part));
        point.retprobe = true;
        break;
    }
  }
  if (!point.lazy_line.empty() && point.line)
    return point_error(text, "a lazy pattern can't be used with a line number");
  if (!point.lazy_line.empty() && point.offset)
    return point_error(text, "a lazy pattern can't be used with an offset");
  if (point.line && point.offset) return point_error(text, "an offset can't be used with a line number");
  if (!point.line && point.lazy_line.empty() && !point.file.empty() && point.function.empty())
    return point_error(text, "a source file needs a line number or a lazy pattern");
  if (point.offset && point.function.empty()) return point_error(text, "an offset needs an entry function");
  if ((point.offset || point.line || !point.lazy_line.empty()) && point.retprobe)
    return point_error(text, "an offset, line or lazy pattern can't be used with %return");
  if (point.function.empty() && point.file.empty()) return point_error(text, "no function or source file");
  return point;
}

bool is_sdt_point(std::string_view text) {
  if (text.starts_with('%')) return true;
  return text.starts_with("sdt_") && text.find(':') != std::string_view::npos &&
         text.find('=') == std::string_view::npos;
}

}  // namespace

bool is_event_name(std::string_view name) {
  if (name.empty() || !is_c_identifier_start(name[0])) return false;
  for (char c : name)
    if (!is_c_identifier_char(c)) return false;
  return true;
}

bool is_glob_pattern(std::string_view text) { return text.find_first_of("*?[") != std::string_view::npos; }

Result<ProbeArg> parse_probe_arg(std::string_view text) {
  ProbeArg arg;
  arg.text = std::string(text);
  auto arg_error = [&](std::string_view what) {
    return fail_usage(fmt::format("bad probe argument '{}': {}", text, what));
  };
  if (size_t eq = text.find('='); eq != std::string_view::npos) {
    arg.name = std::string(text.substr(0, eq));
    if (!is_event_name(arg.name)) return arg_error("the name before '=' must be a C identifier");
    text.remove_prefix(eq + 1);
  }
  if (size_t at = text.find('@'); at != std::string_view::npos && at != 0 && text.substr(at + 1) == "user") {
    arg.user_access = true;
    text = text.substr(0, at);
  }
  if (size_t colon = text.find(':'); colon != std::string_view::npos) {
    arg.type = std::string(text.substr(colon + 1));
    if (arg.type.empty()) return arg_error("an empty type after ':'");
    text = text.substr(0, colon);
  }
  if (text.empty()) return arg_error("nothing to fetch");
  size_t access = text.find_first_of("-.[");
  bool variable = is_c_identifier_start(text[0]);
  if (!variable || access == std::string_view::npos) {
    if (variable && !is_event_name(text)) return arg_error("not a variable name");
    arg.var = std::string(text);
    return arg;
  }
  arg.var = std::string(text.substr(0, access));
  if (!is_event_name(arg.var)) return arg_error("not a variable name");
  std::string_view rest = text.substr(access);
  while (!rest.empty()) {
    ArgField field;
    if (rest.starts_with("->")) {
      field.deref = true;
      rest.remove_prefix(2);
    } else if (rest.starts_with('.')) {
      rest.remove_prefix(1);
    } else if (rest.starts_with('[')) {
      size_t close = rest.find(']');
      if (close == std::string_view::npos) return arg_error("an array index without ']'");
      std::string_view digits = rest.substr(1, close - 1);
      bool negative = digits.starts_with('-');
      auto index = parse_uint(negative ? digits.substr(1) : digits, 10);
      if (!index) return arg_error("an array index must be a number");
      field.is_index = true;
      field.deref = true;
      field.index = negative ? -static_cast<long>(*index) : static_cast<long>(*index);
      arg.fields.push_back(field);
      rest.remove_prefix(close + 1);
      continue;
    } else {
      return arg_error(fmt::format("unexpected '{}'", rest));
    }
    size_t end = 0;
    while (end < rest.size() && is_c_identifier_char(rest[end])) ++end;
    field.name = std::string(rest.substr(0, end));
    if (!is_event_name(field.name)) return arg_error("a member name must be a C identifier");
    arg.fields.push_back(field);
    rest.remove_prefix(end);
  }
  // perf names an argument with members after its last member.
  if (arg.name.empty()) {
    for (auto it = arg.fields.rbegin(); it != arg.fields.rend(); ++it)
      if (!it->is_index) {
        arg.name = it->name;
        break;
      }
  }
  return arg;
}

Result<ProbeSpec> parse_probe_spec(std::string_view definition) {
  auto words = split_escaped_words(definition);
  if (words.empty()) return fail_usage("an empty probe definition");
  ProbeSpec spec;
  std::string_view point = words[0];
  spec.text = std::string(point);
  if (is_sdt_point(point)) {
    // %[sdt_]PROVIDER:NAME, perf's form for SDT markers; the provider keeps its sdt_ prefix here.
    if (point.starts_with('%')) point.remove_prefix(1);
    size_t colon = point.find(':');
    if (colon == std::string_view::npos)
      return point_error(spec.text, "an SDT marker is written %[sdt_]PROVIDER:NAME");
    spec.sdt = true;
    spec.group = std::string(point.substr(0, colon));
    spec.event = std::string(point.substr(colon + 1));
    if (!spec.group.starts_with("sdt_")) spec.group = "sdt_" + spec.group;
    if (spec.event.empty() || spec.group.size() == 4)
      return point_error(spec.text, "an SDT marker is written %[sdt_]PROVIDER:NAME");
  } else {
    auto rest = take_event_name(point, spec);
    if (!rest) return tl::unexpected(rest.error());
    auto parsed = parse_point(*rest);
    if (!parsed) return tl::unexpected(parsed.error());
    spec.point = std::move(*parsed);
  }
  for (size_t i = 1; i < words.size(); ++i) {
    auto arg = parse_probe_arg(words[i]);
    if (!arg) return tl::unexpected(arg.error());
    spec.args.push_back(std::move(*arg));
  }
  return spec;
}

Result<LineRange> parse_line_range(std::string_view text) {
  LineRange range;
  auto range_error = [&](std::string_view what) {
    return fail_usage(fmt::format("bad line range '{}': {}", text, what));
  };
  std::string_view name = text;
  std::string_view lines;
  // The ':' before the lines; a C++ scope "::" is part of the name.
  for (size_t colon = text.find(':'); colon != std::string_view::npos; colon = text.find(':', colon + 2)) {
    if (colon + 1 < text.size() && text[colon + 1] == ':') continue;
    name = text.substr(0, colon);
    lines = text.substr(colon + 1);
    break;
  }
  if (size_t at = name.find('@'); at != std::string_view::npos) {
    range.function = std::string(name.substr(0, at));
    range.file = std::string(name.substr(at + 1));
  } else if (name.find('.') != std::string_view::npos && name.find("::") == std::string_view::npos) {
    range.file = std::string(name);
  } else {
    range.function = std::string(name);
  }
  if (range.function.empty() && range.file.empty()) return range_error("no function or source file");
  if (lines.empty()) return range;
  size_t op = lines.find_first_of("-+");
  auto start = parse_uint(lines.substr(0, op), 10);
  if (!start) return range_error("the start line must be a number");
  range.start = static_cast<unsigned>(*start);
  if (op != std::string_view::npos) {
    auto value = parse_uint(lines.substr(op + 1), 10);
    if (!value) return range_error("the end line must be a number");
    range.has_end = true;
    if (lines[op] == '+') {
      if (*value == 0) return range_error("the line count must be at least 1");
      range.end = range.start + static_cast<unsigned>(*value) - 1;
    } else {
      range.end = static_cast<unsigned>(*value);
      if (range.end < range.start) return range_error("the end line is before the start line");
    }
  }
  return range;
}

std::string field_name(const ProbeArg& arg) {
  if (!arg.name.empty()) return arg.name;
  std::string name = arg.text;
  if (name.ends_with("@user")) name.resize(name.size() - 5);
  std::replace(name.begin(), name.end(), ':', '_');
  if (name.starts_with('@')) name.erase(0, 1);
  return name;
}

}  // namespace sonde::probe
