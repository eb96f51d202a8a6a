#pragma once
// perf's string filters (-F's FILTER, --filter): globs joined with '&' and '|', negated with '!',
// grouped with parentheses, e.g. "!_* & !*@plt".
#include <memory>
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace sonde::probe {

class NameFilter {
 public:
  static Result<NameFilter> parse(std::string_view text);
  bool matches(std::string_view name) const;
  // This filter or `other`: perf ORs each --filter onto -F's pattern.
  void or_with(NameFilter other);

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
};

}  // namespace sonde::probe
