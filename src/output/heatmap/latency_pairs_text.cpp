#include "output/heatmap/latency_pairs_text.hpp"

#include <fmt/format.h>

#include <array>
#include <iterator>

namespace sonde::output {

namespace {

constexpr std::array<LatencyUnit, 4> kUnits{
    {{"ns", 1, 0}, {"us", 1000, 3}, {"ms", 1000000, 6}, {"s", 1000000000, 9}}};

}  // namespace

const LatencyUnit* find_latency_unit(std::string_view name) {
  for (const LatencyUnit& unit : kUnits)
    if (unit.name == name) return &unit;
  return nullptr;
}

std::string latency_pairs_text(const std::vector<analysis::LatencyPair>& pairs, const LatencyUnit& unit) {
  std::string out = fmt::format("TIME(s) LATENCY({})\n", unit.name);
  auto it = std::back_inserter(out);
  for (const analysis::LatencyPair& pair : pairs) {
    fmt::format_to(it, "{}.{:09} ", pair.start_ns / 1000000000ull, pair.start_ns % 1000000000ull);
    uint64_t whole = pair.latency_ns / unit.nanoseconds, part = pair.latency_ns % unit.nanoseconds;
    if (unit.decimals == 0)
      fmt::format_to(it, "{}\n", whole);
    else
      fmt::format_to(it, "{}.{:0{}}\n", whole, part, unit.decimals);
  }
  return out;
}

}  // namespace sonde::output
