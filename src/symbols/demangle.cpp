#include "symbols/demangle.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "base/strings.hpp"

namespace sonde::symbols {

std::optional<std::string> demangle_cxx_full(std::string_view mangled) {
  if (!mangled.starts_with("_Z")) return std::nullopt;
  std::string input(mangled);
  // Symbol versions ("@@GLIBCXX_3.4") are not part of the mangling; perf hands libiberty the
  // name as it is, which keeps them after the demangled name.
  std::string version;
  if (size_t at = input.find('@'); at != std::string::npos) {
    version = input.substr(at);
    input.resize(at);
  }
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(
      abi::__cxa_demangle(input.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !text) return std::nullopt;
  return std::string(text.get()) + version;
}

namespace {

// The special names libiberty prints whole even without DMGL_PARAMS.
bool is_special_name(std::string_view text) {
  static constexpr std::string_view prefixes[] = {"vtable for ",
                                                  "VTT for ",
                                                  "construction vtable for ",
                                                  "typeinfo for ",
                                                  "typeinfo name for ",
                                                  "typeinfo fn for ",
                                                  "non-virtual thunk to ",
                                                  "virtual thunk to ",
                                                  "covariant return thunk to ",
                                                  "guard variable for ",
                                                  "reference temporary",
                                                  "hidden alias for ",
                                                  "transaction clone for ",
                                                  "non-transaction clone for ",
                                                  "TLS init function for ",
                                                  "TLS wrapper function for ",
                                                  "java Class for "};
  for (std::string_view prefix : prefixes)
    if (text.starts_with(prefix)) return true;
  return false;
}

// Length of the operator token starting at `pos` (which points at "operator"), so that its
// punctuation ("operator<<", "operator()", "operator new[]") is not taken for brackets.
size_t operator_token_length(std::string_view text, size_t pos) {
  size_t i = pos + 8;  // "operator"
  if (i >= text.size()) return i - pos;
  if (text.compare(i, 2, "()") == 0) return i + 2 - pos;
  if (text.compare(i, 2, "[]") == 0) return i + 2 - pos;
  if (text[i] == ' ') {
    // "operator new", "operator delete[]", "operator\"\" _x", conversion operators: the rest of
    // the word, and "[]" after new/delete.
    size_t j = i + 1;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
    if (text.compare(j, 2, "[]") == 0) j += 2;
    return j - pos;
  }
  static constexpr std::string_view symbol_chars = "+-*/%^&|~!=<>,";
  while (i < text.size() && symbol_chars.find(text[i]) != std::string_view::npos) ++i;
  // "operator-> " never happens, but "operator<< <int>" puts a space before template arguments.
  if (i + 1 < text.size() && text[i] == ' ' && text[i + 1] == '<') ++i;
  return i - pos;
}

bool starts_operator(std::string_view text, size_t pos) {
  if (text.compare(pos, 8, "operator") != 0) return false;
  if (pos > 0) {
    char before = text[pos - 1];
    if (std::isalnum(static_cast<unsigned char>(before)) || before == '_') return false;
  }
  size_t after = pos + 8;
  return after >= text.size() ||
         !(std::isalnum(static_cast<unsigned char>(text[after])) || text[after] == '_');
}

}  // namespace

std::string strip_cxx_parameters(std::string_view demangled) {
  if (is_special_name(demangled)) return std::string(demangled);
  std::string_view text = demangled;
  std::string version;
  if (size_t at = text.find('@'); at != std::string_view::npos) {
    version = std::string(text.substr(at));
    text = text.substr(0, at);
  }
  int depth = 0;  // <>, {} and [] nesting (template arguments, lambdas, abi tags)
  size_t name_start = 0;
  size_t end = text.size();
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (starts_operator(text, i)) {
      i += operator_token_length(text, i) - 1;
      continue;
    }
    if (c == '<' || c == '{' || c == '[') {
      ++depth;
    } else if (c == '>' || c == '}' || c == ']') {
      --depth;
    } else if (c == '(' && depth == 0) {
      if (text.compare(i, 21, "(anonymous namespace)") == 0) {
        i += 20;
        continue;
      }
      size_t close = i;
      for (int parens = 0; close < text.size(); ++close) {
        if (text[close] == '(') ++parens;
        if (text[close] == ')' && --parens == 0) break;
      }
      if (text.compare(close + 1, 2, "::") == 0) {
        // A local name's enclosing function ("f(int)::$_1::operator()"): libiberty keeps its
        // parameters, as perf shows them.
        i = close;
        continue;
      }
      end = i;  // the parameter list: it and everything after it go
      break;
    } else if (c == '(') {
      // Inside template arguments or a lambda: skip the balanced parentheses.
      int parens = 1;
      while (++i < text.size() && parens > 0) {
        if (text[i] == '(') ++parens;
        if (text[i] == ')') --parens;
      }
      --i;
    } else if (c == ' ' && depth == 0) {
      name_start = i + 1;  // a return type (template functions) ends here
    }
  }
  std::string out(text.substr(name_start, end - name_start));
  return out + version;
}

namespace {

// Rust's mangled hex is lowercase only.
int lower_hex_value(char c) { return c >= 'A' && c <= 'F' ? -1 : hex_digit_value(c); }

bool is_legacy_rust_hash(std::string_view segment) {
  if (segment.size() != 17 || segment[0] != 'h') return false;
  for (char c : segment.substr(1))
    if (lower_hex_value(c) < 0) return false;
  return true;
}

// "$LT$" and friends in a legacy Rust path segment, and ".." for "::".
std::optional<std::string> unescape_legacy_segment(std::string_view segment) {
  std::string out;
  if (segment.starts_with("_$")) segment.remove_prefix(1);
  for (size_t i = 0; i < segment.size();) {
    if (segment[i] == '$') {
      size_t close = segment.find('$', i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      std::string_view code = segment.substr(i + 1, close - i - 1);
      if (code == "SP")
        out += '@';
      else if (code == "BP")
        out += '*';
      else if (code == "RF")
        out += '&';
      else if (code == "LT")
        out += '<';
      else if (code == "GT")
        out += '>';
      else if (code == "LP")
        out += '(';
      else if (code == "RP")
        out += ')';
      else if (code == "C")
        out += ',';
      else if (code.size() > 1 && code[0] == 'u') {
        unsigned value = 0;
        for (char c : code.substr(1)) {
          int digit = lower_hex_value(c);
          if (digit < 0) return std::nullopt;
          value = value * 16 + static_cast<unsigned>(digit);
        }
        if (value > 0x7f) return std::nullopt;  // legacy escapes are ASCII punctuation
        out += static_cast<char>(value);
      } else {
        return std::nullopt;
      }
      i = close + 1;
    } else if (segment.compare(i, 2, "..") == 0) {
      out += "::";
      i += 2;
    } else {
      out += segment[i++];
    }
  }
  return out;
}

std::optional<std::string> demangle_rust_legacy(std::string_view name) {
  if (!name.starts_with("_ZN")) return std::nullopt;
  std::string_view rest = name.substr(3);
  std::vector<std::string_view> segments;
  while (!rest.empty() && rest[0] != 'E') {
    size_t length = 0, digits = 0;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits])))
      length = length * 10 + static_cast<size_t>(rest[digits++] - '0');
    if (digits == 0 || length == 0 || digits + length > rest.size()) return std::nullopt;
    segments.push_back(rest.substr(digits, length));
    rest.remove_prefix(digits + length);
  }
  if (rest.empty() || segments.size() < 2 || !is_legacy_rust_hash(segments.back())) return std::nullopt;
  rest.remove_prefix(1);  // 'E'; a ".llvm.123" or similar suffix may follow and is dropped
  std::string out;
  for (size_t i = 0; i + 1 < segments.size(); ++i) {
    auto segment = unescape_legacy_segment(segments[i]);
    if (!segment) return std::nullopt;
    if (i) out += "::";
    out += *segment;
  }
  return out;
}

// Rust v0 mangling (RFC 2603), printed as rustc-demangle's alternate form (no hashes), which is
// what libiberty prints without DMGL_VERBOSE.
class RustV0Printer {
 public:
  explicit RustV0Printer(std::string_view symbol) : sym_(symbol) {}

  std::optional<std::string> run() {
    if (pos_ < sym_.size() && std::isdigit(static_cast<unsigned char>(sym_[pos_]))) {
      while (pos_ < sym_.size() && std::isdigit(static_cast<unsigned char>(sym_[pos_]))) ++pos_;
    }
    if (!path(true)) return std::nullopt;
    return out_;
  }

 private:
  bool eat(char c) {
    if (pos_ < sym_.size() && sym_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  char next() { return pos_ < sym_.size() ? sym_[pos_++] : '\0'; }
  char peek() const { return pos_ < sym_.size() ? sym_[pos_] : '\0'; }

  std::optional<uint64_t> base62() {
    if (eat('_')) return 0;
    uint64_t value = 0;
    while (true) {
      char c = next();
      if (c == '_') return value + 1;
      uint64_t digit;
      if (c >= '0' && c <= '9')
        digit = static_cast<uint64_t>(c - '0');
      else if (c >= 'a' && c <= 'z')
        digit = static_cast<uint64_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'Z')
        digit = static_cast<uint64_t>(c - 'A' + 36);
      else
        return std::nullopt;
      if (value > (UINT64_MAX - digit) / 62) return std::nullopt;
      value = value * 62 + digit;
    }
  }
  std::optional<uint64_t> disambiguator() {
    if (!eat('s')) return 0;
    auto value = base62();
    if (!value) return std::nullopt;
    return *value + 1;
  }
  std::optional<std::string_view> identifier_bytes() {
    bool punycode = eat('u');
    size_t length = 0, digits = 0;
    if (peek() == '0') {
      ++pos_;  // a decimal number never has a leading zero: "0" is the whole number
      digits = 1;
    } else {
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        length = length * 10 + static_cast<size_t>(next() - '0');
        if (++digits > 10) return std::nullopt;
      }
    }
    if (digits == 0) return std::nullopt;
    eat('_');
    if (pos_ + length > sym_.size()) return std::nullopt;
    std::string_view bytes = sym_.substr(pos_, length);
    pos_ += length;
    (void)punycode;  // printed as encoded: rare in practice
    return bytes;
  }
  bool with_backref(bool (RustV0Printer::*parse)(bool), bool in_value) {
    size_t start = pos_ - 1;
    auto target = base62();
    if (!target || *target >= start || ++depth_ > 64) return false;
    size_t saved = pos_;
    pos_ = *target;
    bool ok = (this->*parse)(in_value);
    pos_ = saved;
    --depth_;
    return ok;
  }

  // "for<'a, 'b> ": a binder introduces lifetimes, named by their depth as rustc-demangle does.
  bool binder(size_t& bound) {
    auto count = base62();
    if (!count || *count + 1 > 64) return false;
    bound = *count + 1;
    out_ += "for<";
    for (size_t i = 0; i < bound; ++i) {
      if (i) out_ += ", ";
      lifetime_depth_ += 1;
      print_lifetime(1);
    }
    out_ += "> ";
    return true;
  }
  void print_lifetime(uint64_t index) {
    if (index == 0 || index > lifetime_depth_) {
      out_ += "'_";
      return;
    }
    uint64_t depth = lifetime_depth_ - index;
    if (depth < 26)
      out_ += std::string("'") + static_cast<char>('a' + depth);
    else
      out_ += "'_" + std::to_string(depth);
  }
  bool lifetime() {
    auto index = base62();
    if (!index) return false;
    print_lifetime(*index);
    return true;
  }

  bool path(bool in_value) {
    if (++depth_ > 256) return false;
    bool ok = path_inner(in_value);
    --depth_;
    return ok;
  }
  bool path_inner(bool in_value) {
    switch (next()) {
      case 'C': {
        if (!disambiguator()) return false;
        auto name = identifier_bytes();
        if (!name) return false;
        out_ += *name;
        return true;
      }
      case 'N': {
        char ns = next();
        if (!std::isalpha(static_cast<unsigned char>(ns))) return false;
        if (!path(in_value)) return false;
        auto dis = disambiguator();
        if (!dis) return false;
        auto name = identifier_bytes();
        if (!name) return false;
        if (std::isupper(static_cast<unsigned char>(ns))) {
          out_ += "::{";
          out_ += ns == 'C' ? "closure" : ns == 'S' ? "shim" : std::string(1, ns);
          if (!name->empty()) {
            out_ += ':';
            out_ += *name;
          }
          out_ += '#' + std::to_string(*dis) + '}';
        } else if (!name->empty()) {
          out_ += "::";
          out_ += *name;
        }
        return true;
      }
      case 'M': {
        if (!disambiguator() || !skip_path()) return false;
        out_ += '<';
        if (!type(false)) return false;
        out_ += '>';
        return true;
      }
      case 'X': {
        if (!disambiguator() || !skip_path()) return false;
        [[fallthrough]];
      }
      case 'Y': {
        out_ += '<';
        if (!type(false)) return false;
        out_ += " as ";
        if (!path(false)) return false;
        out_ += '>';
        return true;
      }
      case 'I': {
        if (!path(in_value)) return false;
        if (in_value) out_ += "::";
        out_ += '<';
        if (!generic_args()) return false;
        out_ += '>';
        return true;
      }
      case 'B':
        return with_backref(&RustV0Printer::path, in_value);
      default:
        return false;
    }
  }
  // An impl's own path is not printed; parse it into a scratch buffer.
  bool skip_path() {
    std::string saved = std::move(out_);
    out_.clear();
    bool ok = path(false);
    out_ = std::move(saved);
    return ok;
  }
  bool generic_args() {
    for (bool first = true; !eat('E'); first = false) {
      if (pos_ >= sym_.size()) return false;
      if (!first) out_ += ", ";
      if (eat('L')) {
        if (!lifetime()) return false;
      } else if (eat('K')) {
        if (!constant()) return false;
      } else if (!type(false)) {
        return false;
      }
    }
    return true;
  }
  bool constant() {
    if (eat('B')) return with_backref(&RustV0Printer::constant_bool, false);
    if (eat('p')) {
      out_ += '_';
      return true;
    }
    char kind = next();
    bool negative = eat('n');
    uint64_t value = 0;
    while (peek() != '_') {
      int digit = lower_hex_value(next());
      if (digit < 0) return false;
      value = value * 16 + static_cast<uint64_t>(digit);
    }
    eat('_');
    if (kind == 'b')
      out_ += value ? "true" : "false";
    else if (kind == 'c')
      out_ += '\'' + std::string(1, static_cast<char>(value)) + '\'';
    else
      out_ += (negative ? "-" : "") + std::to_string(value);
    return true;
  }
  bool constant_bool(bool) { return constant(); }

  bool type(bool in_value) {
    if (++depth_ > 256) return false;
    bool ok = type_inner(in_value);
    --depth_;
    return ok;
  }
  bool type_inner(bool) {
    static constexpr std::pair<char, std::string_view> basic[] = {
        {'a', "i8"},   {'b', "bool"},  {'c', "char"},  {'d', "f64"}, {'e', "str"}, {'f', "f32"},
        {'h', "u8"},   {'i', "isize"}, {'j', "usize"}, {'l', "i32"}, {'m', "u32"}, {'n', "i128"},
        {'o', "u128"}, {'s', "i16"},   {'t', "u16"},   {'u', "()"},  {'v', "..."}, {'x', "i64"},
        {'y', "u64"},  {'z', "!"},     {'p', "_"}};
    char c = peek();
    for (auto& [code, text] : basic) {
      if (c == code) {
        ++pos_;
        out_ += text;
        return true;
      }
    }
    switch (c) {
      case 'A':
        ++pos_;
        out_ += '[';
        if (!type(false)) return false;
        out_ += "; ";
        if (!constant()) return false;
        out_ += ']';
        return true;
      case 'S':
        ++pos_;
        out_ += '[';
        if (!type(false)) return false;
        out_ += ']';
        return true;
      case 'T': {
        ++pos_;
        out_ += '(';
        size_t count = 0;
        for (; !eat('E'); ++count) {
          if (pos_ >= sym_.size()) return false;
          if (count) out_ += ", ";
          if (!type(false)) return false;
        }
        if (count == 1) out_ += ',';
        out_ += ')';
        return true;
      }
      case 'R':
      case 'Q':
        ++pos_;
        out_ += '&';
        if (eat('L')) {
          auto index = base62();
          if (!index) return false;
          if (*index != 0) {
            print_lifetime(*index);
            out_ += ' ';
          }
        }
        if (c == 'Q') out_ += "mut ";
        return type(false);
      case 'P':
      case 'O':
        ++pos_;
        out_ += c == 'P' ? "*const " : "*mut ";
        return type(false);
      case 'F': {
        ++pos_;
        size_t bound = 0;
        if (eat('G') && !binder(bound)) return false;
        if (eat('U')) out_ += "unsafe ";
        if (eat('K')) {
          out_ += "extern \"";
          if (eat('C')) {
            out_ += 'C';
          } else {
            auto abi = identifier_bytes();
            if (!abi) return false;
            for (char a : *abi) out_ += a == '_' ? '-' : a;
          }
          out_ += "\" ";
        }
        out_ += "fn(";
        for (bool first = true; !eat('E'); first = false) {
          if (pos_ >= sym_.size()) return false;
          if (!first) out_ += ", ";
          if (!type(false)) return false;
        }
        out_ += ')';
        bool ok = true;
        if (!eat('u')) {
          out_ += " -> ";
          ok = type(false);
        }
        lifetime_depth_ -= bound;
        return ok;
      }
      case 'D': {
        ++pos_;
        out_ += "dyn ";
        size_t bound = 0;
        if (eat('G') && !binder(bound)) return false;
        for (bool first = true; !eat('E'); first = false) {
          if (pos_ >= sym_.size()) return false;
          if (!first) out_ += " + ";
          if (!path(false)) return false;
          // Associated type bindings join the trait's generic arguments: Fn<(A,), Output = B>.
          for (bool first_binding = true; eat('p'); first_binding = false) {
            auto name = identifier_bytes();
            if (!name) return false;
            if (!first_binding)
              out_ += ", ";
            else if (!out_.empty() && out_.back() == '>')
              out_.back() = ',', out_ += ' ';
            else
              out_ += '<';
            out_ += *name;
            out_ += " = ";
            if (!type(false)) return false;
            if (peek() != 'p') out_ += '>';
          }
        }
        lifetime_depth_ -= bound;
        return eat('L') && base62().has_value();
      }
      case 'B':
        ++pos_;
        return with_backref(&RustV0Printer::type, false);
      default:
        return path(false);
    }
  }

  std::string_view sym_;
  size_t pos_ = 0;
  int depth_ = 0;
  uint64_t lifetime_depth_ = 0;  // lifetimes bound by enclosing binders
  std::string out_;
};

}  // namespace

std::optional<std::string> demangle_rust(std::string_view name) {
  if (name.starts_with("_R")) {
    std::string_view body = name.substr(2);
    // A vendor suffix (".llvm.123") is not part of the mangling.
    if (size_t dot = body.find('.'); dot != std::string_view::npos) body = body.substr(0, dot);
    return RustV0Printer(body).run();
  }
  return demangle_rust_legacy(name);
}

std::optional<std::string> demangle(std::string_view name) {
  if (auto rust = demangle_rust(name)) return rust;
  if (auto full = demangle_cxx_full(name)) return strip_cxx_parameters(*full);
  return std::nullopt;
}

}  // namespace sonde::symbols
