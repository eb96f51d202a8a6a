#pragma once
// Perl's character classes on byte strings (\s, \d, \w without locale or unicode_strings), which
// the folding rules of stackcollapse-perf.pl are written in.
namespace sonde::analysis {

inline bool perl_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
inline bool perl_digit(char c) { return c >= '0' && c <= '9'; }
inline bool perl_word(char c) {
  return perl_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

}  // namespace sonde::analysis
