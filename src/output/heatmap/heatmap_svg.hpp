#pragma once
// A heat map as trace2heatmap.pl draws it (boxes of --boxsize pixels, white to red by count,
// time along x, latency up y), with hover details per box: time, latency range, count, share
// of the column (and the accumulated count from the bottom with accstats).
#include <string>

#include "analysis/heatmap/heatmap.hpp"

namespace sonde::output {

struct HeatMapStyle {
  std::string title = "Latency Heat Map";
  std::string units_lat;  // label for the latency axis ("us", ...)
  std::string fonttype = "Verdana";
  int fontsize = 12;
  int boxsize = 8;
  bool grid = false;
  bool accstats = false;
};

std::string render_heatmap_svg(const analysis::HeatMap& map, const HeatMapStyle& style);

}  // namespace sonde::output
