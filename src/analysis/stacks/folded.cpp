#include "analysis/stacks/folded.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <unordered_map>

#include "analysis/stacks/stack_collapse_chars.hpp"

namespace sonde::analysis {

namespace {

// \d+(?:\.\d*)? as the whole of `text`.
std::optional<double> count_of(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && perl_digit(text[i])) ++i;
  if (i == 0) return std::nullopt;
  if (i < text.size()) {
    if (text[i] != '.') return std::nullopt;
    for (size_t j = i + 1; j < text.size(); ++j)
      if (!perl_digit(text[j])) return std::nullopt;
  }
  double count = 0;
  if (std::from_chars(text.data(), text.data() + text.size(), count).ec == std::errc()) return count;
  return std::strtod(std::string(text).c_str(), nullptr);  // out of range: strtod's infinity
}

// Splits "stack<ws>count": the count is everything after the last whitespace character.
std::optional<std::pair<std::string_view, double>> split_count(std::string_view line) {
  size_t space = line.size();
  while (space > 0 && !perl_space(line[space - 1])) {
    // Not a count character: no count, whatever comes before (and no scan of a whole stack).
    if (!perl_digit(line[space - 1]) && line[space - 1] != '.') return std::nullopt;
    --space;
  }
  if (space == 0) return std::nullopt;
  auto count = count_of(line.substr(space));
  if (!count) return std::nullopt;
  return std::pair{line.substr(0, space - 1), *count};
}

std::string strip_hex_numbers(std::string_view stack) {
  std::string out;
  for (size_t i = 0; i < stack.size();) {
    if (stack.substr(i, 2) == "0x" && i + 2 < stack.size() &&
        std::isxdigit(static_cast<unsigned char>(stack[i + 2]))) {
      size_t j = i + 2;
      while (j < stack.size() && std::isxdigit(static_cast<unsigned char>(stack[j]))) ++j;
      out += "0x...";
      i = j;
    } else {
      out += stack[i++];
    }
  }
  return out;
}

}  // namespace

std::optional<FoldedLine> parse_folded_line(std::string_view line) {
  auto last = split_count(line);
  if (!last) return std::nullopt;
  FoldedLine folded{last->first, last->second, std::nullopt};
  if (auto first = split_count(last->first)) {
    folded.stack = first->first;
    folded.count_before = first->second;
  }
  return folded;
}

std::string diff_folded(std::string_view before, std::string_view after, const DiffFoldedOptions& options) {
  struct Counts {
    double before = 0, after = 0;
  };
  std::map<std::string, Counts, std::less<>> stacks;
  double total_before = 0, total_after = 0;
  auto read = [&](std::string_view text, bool is_after) {
    for_each_folded_line(text, [&](const FoldedLine& line) {
      std::string stack = options.strip_hex ? strip_hex_numbers(line.stack) : std::string(line.stack);
      auto& counts = stacks[stack];
      (is_after ? counts.after : counts.before) += line.count;
      (is_after ? total_after : total_before) += line.count;
    });
  };
  read(before, false);
  read(after, true);
  std::string out;
  for (auto& [stack, counts] : stacks) {
    double first = counts.before;
    if (options.normalize && total_before != total_after && total_before > 0)
      first = std::floor(first * total_after / total_before);
    out += fmt::format("{} {} {}\n", stack, first, counts.after);
  }
  return out;
}

}  // namespace sonde::analysis
