// The SVG's number formatting gives fmt's bytes exactly, near rounding ties and edge values too.
#include "output/svg/svg_numbers.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

namespace sonde::output {
namespace {

std::string fixed(double value, int decimals) {
  std::string out;
  append_fixed(out, value, decimals);
  return out;
}

std::string shortest(double value) {
  std::string out;
  append_number(out, value);
  return out;
}

TEST(SvgNumbers, FixedMatchesFmtOnTiesAndEdges) {
  for (double value : {0.0, -0.0, 0.25, 0.35, 2.5, 0.05, 0.15, 1.005, 2.675, 10.45, 999.95, 1179.95, -0.004,
                       -12.5, 1e9, 1e12, 123456789.125, std::nan(""), HUGE_VAL}) {
    for (int decimals = 0; decimals <= 3; ++decimals)
      EXPECT_EQ(fixed(value, decimals), fmt::format("{:.{}f}", value, decimals)) << value << " " << decimals;
  }
}

TEST(SvgNumbers, FixedMatchesFmtOnPixelCoordinates) {
  // x = 10 + start * 1180 / total, as the graph computes it, over many totals and starts.
  std::mt19937_64 random(7);
  for (int i = 0; i < 200000; ++i) {
    double total = static_cast<double>(random() % 5000000 + 1);
    double start = static_cast<double>(random() % static_cast<uint64_t>(total));
    double x = 10 + start * (1180 / total);
    int decimals = static_cast<int>(i % 4);
    ASSERT_EQ(fixed(x, decimals), fmt::format("{:.{}f}", x, decimals)) << x;
    double percent = 100 * start / total;
    ASSERT_EQ(fixed(percent, 2), fmt::format("{:.2f}", percent)) << percent;
  }
  // Exact tenths and hundredths (ties after scaling) are where a naive multiply goes wrong.
  for (int units = 0; units < 200000; ++units) {
    double value = units / 1000.0 + 0.0005;
    ASSERT_EQ(fixed(value, 3 - units % 2), fmt::format("{:.{}f}", value, 3 - units % 2)) << value;
  }
}

TEST(SvgNumbers, ShortestMatchesFmt) {
  for (double value :
       {0.0, -0.0, 53.0, 63.5, 0.5, 1e15, 1e16, 123456789.0, 941.5, 3.25, 0.1, 1e-7, -4.0, 7.59})
    EXPECT_EQ(shortest(value), fmt::format("{}", value)) << value;
}

TEST(SvgNumbers, CommasGroupThousands) {
  std::string out;
  append_with_commas(out, 1234567);
  out += ' ';
  append_with_commas(out, 999);
  out += ' ';
  append_with_commas(out, 1000);
  out += ' ';
  append_with_commas(out, 0);
  out += ' ';
  append_with_commas(out, 10702500000.0);
  EXPECT_EQ(out, "1,234,567 999 1,000 0 10,702,500,000");
}

}  // namespace
}  // namespace sonde::output
