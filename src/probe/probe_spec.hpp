#pragma once
// perf-probe(1)'s grammar: a probe definition `[[GROUP:]EVENT=]POINT [ARG ...]`, where POINT is
// `FUNC[@SRC][:RLN|+OFFS|%return|;PTN]`, `SRC:ALN`, `SRC;PTN`, an address `0x...`, or an SDT
// marker `%sdt_PROVIDER:NAME`; each ARG is `[NAME=]VAR[FIELDS][:TYPE][@user]` with VAR a local
// variable, `$retval`, `$argN`, `$params`, `$vars`, `$comm`, `%REG`, `@SYM` or `+OFF(%REG)`.
// A backslash escapes the next character in a point. And `-L`'s line ranges,
// `FUNC[@SRC][:START[-END|+COUNT]]` or `SRC[:START[-END|+COUNT]]`.
// Parsing only: what the names mean is the resolver's business.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sonde::probe {

struct ProbePoint {
  std::string function;             // a name or glob; "" for a SRC:ALN or SRC;PTN point
  std::string file;                 // @SRC, or the SRC of SRC:ALN
  unsigned line = 0;                // :RLN relative to the function, or SRC:ALN absolute
  std::string lazy_line;            // ;PTN, escapes kept (they matter to the pattern)
  uint64_t offset = 0;              // +OFFS from the function's entry
  bool retprobe = false;            // %return
  std::optional<uint64_t> address;  // FUNC given as 0x...: an absolute address
};

struct ArgField {
  std::string name;    // member name; "" for an index
  bool deref = false;  // reached through "->" (or an index of a pointer)
  bool is_index = false;
  long index = 0;
};

struct ProbeArg {
  std::string name;  // NAME=, or perf's default (the last member name), "" otherwise
  std::string var;   // variable, $retval, $argN, %reg, @sym, +8(%di)...
  std::vector<ArgField> fields;
  std::string type;          // :TYPE, "" for the variable's own
  bool user_access = false;  // @user
  std::string text;          // the argument as written
};

struct ProbeSpec {
  std::string group;  // GROUP: of [[GROUP:]EVENT=], "" for the default
  std::string event;  // EVENT=, "" for the default
  ProbePoint point;
  std::vector<ProbeArg> args;
  bool sdt = false;  // %sdt_PROVIDER:NAME (group and event hold provider and name)
  std::string text;  // the point as written (for messages)
};

// `definition` is one --add argument: the point and its arguments separated by spaces (a
// definition may also come split over several argv words: join them with spaces first).
// Errors are usage errors naming what is wrong.
Result<ProbeSpec> parse_probe_spec(std::string_view definition);
Result<ProbeArg> parse_probe_arg(std::string_view text);

// `-L`'s line range: lines are relative to the function when one is named.
struct LineRange {
  std::string function;
  std::string file;
  unsigned start = 0;  // 0: from the beginning
  unsigned end = 0;    // inclusive, when has_end (a bare START runs to the end, as in perf)
  bool has_end = false;
};
Result<LineRange> parse_line_range(std::string_view text);

// An event or group name the kernel takes: a C identifier.
bool is_event_name(std::string_view name);
// Whether `text` has a `*?[` that makes it a glob, perf's test for a function pattern.
bool is_glob_pattern(std::string_view text);
// The event field an argument fills: its NAME=, or perf's name made of its text (`name:string`
// is `name_string`, `@g` is `g`; `@user` is left out).
std::string field_name(const ProbeArg& arg);

}  // namespace sonde::probe
