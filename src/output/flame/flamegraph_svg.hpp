#pragma once
// A flame graph as one SVG (or one self-contained HTML page holding that SVG): flamegraph.pl's
// geometry, text and palettes, sonde's own script for hover, zoom and search.
#include <string>
#include <string_view>

#include "analysis/flame/flame_tree.hpp"
#include "base/error.hpp"

namespace sonde::output {

struct FlameGraphStyle {
  std::string title;  // empty: "Flame Graph", "Icicle Graph" (inverted) or "Flame Chart"
  std::string subtitle;
  std::string countname = "samples";
  std::string nametype = "Function:";
  std::string fonttype = "Verdana";
  std::string notes;
  std::string colors = "hot";
  std::string bgcolors;  // empty: the palette's default; "yellow", "blue", "green", "grey" or "#rrggbb"
  int width = 1200;
  int frame_height = 16;
  double fontsize = 12;
  double fontwidth = 0.59;
  double minwidth = 0.1;  // pixels, or percent of the total when minwidth_percent
  bool minwidth_percent = false;
  bool hash = false;
  bool inverted = false;
  bool flamechart = false;
  bool negate = false;
  double factor = 1;  // counts are multiplied by this in the labels
};

// --minwidth's text: pixels, or a percentage of the total with a trailing '%'.
Result<void> set_minwidth(FlameGraphStyle& style, std::string_view text);
// Checks the options flamegraph.pl checks (palette, background, notes without < or >).
Result<void> check_style(const FlameGraphStyle& style);
std::string render_flamegraph_svg(const analysis::FlameTree& tree, const FlameGraphStyle& style);
std::string render_flamegraph_html(const analysis::FlameTree& tree, const FlameGraphStyle& style);
// The SVG flamegraph.pl writes when there is nothing to draw.
std::string render_empty_flamegraph_svg(const FlameGraphStyle& style);

std::string_view flamegraph_script();

}  // namespace sonde::output
