#include "output/svg/svg_numbers.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iterator>

namespace sonde::output {

namespace {

constexpr int64_t kPowersOfTen[] = {1, 10, 100, 1000};

void append_integer(std::string& out, int64_t value) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

}  // namespace

std::optional<int64_t> fixed_units(double value, int decimals) {
  // Negatives, -0 and NaN go to fmt.
  if (decimals < 0 || decimals > 3 || std::signbit(value) || std::isnan(value)) return std::nullopt;
  double scaled = value * static_cast<double>(kPowersOfTen[decimals]);
  // Below 1e9 the product is within 2.5e-7 of the exact one, so away from a tie (x.5) both round
  // to the same integer; at a tie only the exact binary value decides, which fmt computes.
  if (!(scaled < 1e9)) return std::nullopt;
  double whole = std::floor(scaled);
  double fraction = scaled - whole;
  if (std::fabs(fraction - 0.5) < 1e-6) return std::nullopt;
  return static_cast<int64_t>(whole) + (fraction > 0.5 ? 1 : 0);
}

void append_units(std::string& out, int64_t units, int decimals) {
  int64_t scale = kPowersOfTen[decimals];
  append_integer(out, units / scale);
  if (decimals == 0) return;
  out += '.';
  int64_t fraction = units % scale;
  for (int64_t digit = scale / 10; digit > 0; digit /= 10)
    out += static_cast<char>('0' + fraction / digit % 10);
}

void append_fixed(std::string& out, double value, int decimals) {
  if (auto units = fixed_units(value, decimals)) return append_units(out, *units, decimals);
  fmt::format_to(std::back_inserter(out), "{:.{}f}", value, decimals);
}

void append_number(std::string& out, double value) {
  // Whole and half values (coordinates in pixels) are printed as such; fmt's shortest form
  // gives the same digits for them.
  if (!std::signbit(value) && value < 1e15) {
    double twice = value * 2;
    if (twice == std::floor(twice)) {
      auto halves = static_cast<int64_t>(twice);
      append_integer(out, halves / 2);
      if (halves % 2) out += ".5";
      return;
    }
  }
  fmt::format_to(std::back_inserter(out), "{}", value);
}

void append_with_commas(std::string& out, double value) {
  std::string digits;
  append_fixed(digits, value, 0);
  size_t first = digits.front() == '-' ? 1 : 0;
  out.append(digits, 0, first);
  for (size_t i = first; i < digits.size(); ++i) {
    if (i > first && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
}

}  // namespace sonde::output
