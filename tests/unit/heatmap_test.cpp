// Heat map binning (trace2heatmap.pl's columns and rows) and its SVG.
#include "analysis/heatmap/heatmap.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "flamegraph_svg_check.hpp"
#include "output/heatmap/heatmap_svg.hpp"
#include "output/heatmap/latency_pairs_text.hpp"

namespace sonde::analysis {
namespace {

TEST(HeatmapBinning, ColumnsByTimeRowsByLatency) {
  HeatMapBinner binner;
  EXPECT_EQ(
      read_latency_pairs("TIME(us) LATENCY(us)\n1000000 10\n1500000 20\n3000000 100\nbad line\n\n", binner),
      1u);
  ASSERT_EQ(binner.size(), 3u);
  HeatMapOptions options;
  options.time_divisor = 1e6;
  options.rows = 10;
  auto map = binner.bin(options);
  ASSERT_TRUE(map) << map.error().message;
  EXPECT_EQ(map->columns, 3u);   // 0 s, 0.5 s, 2 s after the first
  EXPECT_EQ(map->step_lat, 10);  // 100 / 10 rows
  EXPECT_EQ(map->rows, 11u);     // 0..100 inclusive
  EXPECT_EQ(map->at(0, 1), 1u);  // 10 and 20 at second 0: rows 1 and 2
  EXPECT_EQ(map->at(0, 2), 1u);
  EXPECT_EQ(map->at(2, 10), 1u);
  EXPECT_EQ(map->events, 3u);
  options.max_lat = 50;
  map = binner.bin(options);
  ASSERT_TRUE(map);
  EXPECT_EQ(map->events, 2u);
  options.rows = 1000;
  EXPECT_FALSE(binner.bin(options));  // step of 0: refused with a message
}

TEST(HeatmapBinning, OffsetsWithinTheSecond) {
  HeatMapBinner binner;
  read_offset_timestamps(
      "100.250000\n"
      "demo  7511  101.750000:    2004008 cpu-clock:pppH: \n"
      "\t            1204 hot_leaf+0x24 (/x)\n"
      "102 500000\n",
      binner);
  ASSERT_EQ(binner.size(), 3u);
  HeatMapOptions options;
  options.max_lat = kOffsetAxisMicros;
  options.rows = 4;
  auto map = binner.bin(options);
  ASSERT_TRUE(map);
  EXPECT_EQ(map->columns, 3u);
  EXPECT_EQ(map->at(0, 1), 1u);  // 0.25 s into second 100
  EXPECT_EQ(map->at(1, 3), 1u);  // 0.75 s
  EXPECT_EQ(map->at(2, 2), 1u);  // 0.5 s
}

TEST(HeatmapBinning, FractionalRowsForLatenciesBelowTheRowCount) {
  HeatMapBinner binner;
  add_latency_pairs(binner, {{1000000000, 24000}, {1500000000, 44000}, {2200000000, 3000}}, 1000);  // us
  auto refused = binner.bin({.rows = 50});  // trace2heatmap's rule: a row height of int(44 / 50)
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message.find("row resolution too high"), 0u);
  auto map = binner.bin({.rows = 50, .fractional_rows = true});
  ASSERT_TRUE(map) << map.error().message;
  EXPECT_DOUBLE_EQ(map->step_lat, 0.88);  // 44 / 50, to two significant digits
  EXPECT_EQ(map->columns, 2u);            // seconds 1 and 2 after the first
  EXPECT_EQ(map->at(0, 27), 1u);          // 24 us at second 0
  EXPECT_EQ(map->at(1, 3), 1u);           // 3 us at second 1
  std::string svg = output::render_heatmap_svg(*map, {.units_lat = "us"});
  EXPECT_NE(svg.find("|2.64-3.52us|"), std::string::npos);  // not 2.6400000000000001
}

TEST(LatencyPairsText, TraceToHeatmapInputInTheChosenUnit) {
  std::vector<LatencyPair> pairs{{12000000001, 1500}, {12500000000, 2000000}};
  EXPECT_EQ(output::latency_pairs_text(pairs, *output::find_latency_unit("us")),
            "TIME(s) LATENCY(us)\n12.000000001 1.500\n12.500000000 2000.000\n");
  EXPECT_EQ(output::latency_pairs_text(pairs, *output::find_latency_unit("ns")),
            "TIME(s) LATENCY(ns)\n12.000000001 1500\n12.500000000 2000000\n");
  EXPECT_EQ(output::latency_pairs_text(pairs, *output::find_latency_unit("s")),
            "TIME(s) LATENCY(s)\n12.000000001 0.000001500\n12.500000000 0.002000000\n");
  EXPECT_EQ(output::find_latency_unit("weeks"), nullptr);
  // The dump reads back as trace2heatmap input.
  HeatMapBinner binner;
  EXPECT_EQ(read_latency_pairs(output::latency_pairs_text(pairs, *output::find_latency_unit("ms")), binner),
            0u);
  EXPECT_EQ(binner.size(), 2u);
}

TEST(HeatmapSvg, WellFormedWithOneBoxPerCell) {
  HeatMapBinner binner;
  for (int i = 0; i < 100; ++i) binner.add(i * 0.1, i % 7);
  auto map = binner.bin({.rows = 3});
  ASSERT_TRUE(map);
  std::string svg = output::render_heatmap_svg(*map, {.units_lat = "us", .grid = true});
  auto doc = test::parse_xml(svg);
  ASSERT_EQ(doc.error, "");
  uint64_t counted = 0;
  for (const auto& element : doc.elements) {
    auto data = element.attributes.find("data-h");
    if (data == element.attributes.end()) continue;
    // "time|range|count|acc|total"
    std::string_view fields = data->second;
    size_t a = fields.find('|'), b = fields.find('|', a + 1), c = fields.find('|', b + 1);
    counted += std::stoull(std::string(fields.substr(b + 1, c - b - 1)));
  }
  EXPECT_EQ(counted, 100u);
}

}  // namespace
}  // namespace sonde::analysis
