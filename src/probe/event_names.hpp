#pragma once
// Group and event names as perf probe makes them: the group `probe` for kernel probes and
// `probe_<binary>` for user probes (the binary's basename cut at its first character that is not
// a letter, digit or '_'), the event after the function (`func_L5` for `func:5`, `abs_1300` for
// an address, `__return` appended for return probes), and `_1`, `_2`... when the name is taken,
// which only a probe after the first of one definition (or -f) may do.
#include <set>
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace sonde::probe {

std::string default_user_group(std::string_view binary_path);
// `function` made an event name (its '.' or '@' suffix dropped, other characters a name cannot
// hold made '_'), before `__return` and `_N` suffixes.
std::string base_event_name(std::string_view function);

// Names taken, "GROUP:EVENT"; `claim` adds the one it returns.
class EventNamer {
 public:
  explicit EventNamer(std::set<std::string> taken) : taken_(std::move(taken)) {}
  // `base` as is when free; with a suffix when `allow_suffix`; otherwise perf's "already exists".
  Result<std::string> claim(const std::string& group, const std::string& base, bool retprobe,
                            bool allow_suffix);

 private:
  std::set<std::string> taken_;
};

}  // namespace sonde::probe
