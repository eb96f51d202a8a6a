#pragma once
// Numbers as the flame graph's SVG prints them, appended without a format string: fixed
// decimals (fmt's "{:.Nf}"), the shortest form (fmt's "{}", perl's print for these values) and
// thousands separators. Each gives fmt's bytes exactly: a fast path for the usual values (small,
// not near a rounding tie), fmt itself for the rest.
#include <cstdint>
#include <optional>
#include <string>

namespace sonde::output {

// round(value * 10^decimals) when that is what "{:.Nf}" prints (decimals 0-3), else nullopt.
std::optional<int64_t> fixed_units(double value, int decimals);
// Appends units / 10^decimals with exactly `decimals` digits after the point.
void append_units(std::string& out, int64_t units, int decimals);
// "{:.Nf}"
void append_fixed(std::string& out, double value, int decimals);
// "{}"
void append_number(std::string& out, double value);
// "{:.0f}" with a comma every three digits: 1234567 -> "1,234,567".
void append_with_commas(std::string& out, double value);

}  // namespace sonde::output
