#pragma once
// Folded stacks ("a;b;c 12" per line), as flamegraph.pl and difffolded.pl read them: the count is
// the last whitespace-separated field (/^(.*)\s+?(\d+(?:\.\d*)?)$/), a second count before it
// makes a differential line ("stack before after").
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::analysis {

struct FoldedLine {
  std::string_view stack;
  double count = 0;                    // the (only, or "after") count
  std::optional<double> count_before;  // differential input: the first of two counts
};

// One line (without '\n'); nullopt when it has no count.
std::optional<FoldedLine> parse_folded_line(std::string_view line);

// Calls `visit(FoldedLine)` for each valid line of `text`; returns the number of invalid
// (non-empty) lines.
template <typename Visit>
size_t for_each_folded_line(std::string_view text, Visit&& visit) {
  size_t invalid = 0;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (auto parsed = parse_folded_line(line)) {
      visit(*parsed);
    } else if (!line.empty()) {
      ++invalid;
    }
  }
  return invalid;
}

// difffolded.pl: the stacks of two folded profiles with both counts, "stack before after" per
// line. `normalize` (-n) scales the first profile's counts to the second's total; `strip_hex`
// (-s) replaces hex numbers (0x...) in names with "0x...".
struct DiffFoldedOptions {
  bool normalize = false;
  bool strip_hex = false;
};
std::string diff_folded(std::string_view before, std::string_view after, const DiffFoldedOptions& options);

}  // namespace sonde::analysis
