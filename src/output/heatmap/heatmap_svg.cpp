#include "output/heatmap/heatmap_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "output/svg/xml_text.hpp"

namespace sonde::output {

namespace {

constexpr int kMapXpad = 10;
constexpr int kMinWidth = 500;

std::string attribute_text(std::string_view text) { return xml_text(text, XmlQuotes::both); }

// Whole numbers as they are; fractions (fractional rows, sub-second steps) to 9 significant
// digits, so 3 * 0.61 prints as 1.83.
std::string svg_number(double value) {
  return value == std::trunc(value) ? fmt::format("{}", value) : fmt::format("{:.9g}", value);
}

// trace2heatmap's "linear" scale: white for nothing, to red at the largest count.
std::string linear_color(double ratio) {
  return fmt::format("rgb(255,{:.0f},{:.0f})", 240 - 240 * ratio, 220 - 220 * ratio);
}

constexpr std::string_view kScript = R"JS("use strict";
(function () {
  var details;
  function show(e) {
    var d = e.target.getAttribute && e.target.getAttribute("data-h");
    if (!d) return;
    var p = d.split("|"), c = +p[2], acc = +p[3], total = +p[4];
    var text = "time " + p[0] + "s, range " + p[1] + ", count: " + c + ", colpct: " + Math.floor(c / total * 100) + "%";
    if (hm.accstats) text += ", acc: " + acc + ", acc pct: " + Math.floor(acc / total * 100) + "%";
    details.textContent = text;
  }
  function init() {
    details = document.getElementById("details");
    var map = document.getElementById("map");
    map.addEventListener("mouseover", show);
    map.addEventListener("mouseout", function () { details.textContent = " "; });
    if (/^#selftest/.test(location.hash)) {
      var box = map.querySelector("rect[data-h]");
      if (box) box.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
      var ok = box && /^time .*count: [0-9]+, colpct: [0-9]+%/.test(details.textContent);
      document.getElementById("heatmap").setAttribute("data-selftest", ok ? "pass" : "fail: hover shows no details");
    }
  }
  window.addEventListener("load", init);
})();
)JS";

}  // namespace

std::string render_heatmap_svg(const analysis::HeatMap& map, const HeatMapStyle& style) {
  double fs = style.fontsize;
  double ypad1 = fs * 3, ypad2 = fs * 4.5 + (style.grid ? fs * 1.2 : 0);
  int box = style.boxsize;
  int width = std::max(static_cast<int>(map.columns) * box + kMapXpad * 2, kMinWidth);
  double height = static_cast<double>(map.rows) * box + ypad1 + ypad2;

  std::string out;
  out.reserve(map.events * 8 + 4096);
  out += "<?xml version=\"1.0\" standalone=\"no\"?>\n";
  out +=
      "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
      "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n";
  fmt::format_to(std::back_inserter(out),
                 "<svg id=\"heatmap\" version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                 "xmlns=\"http://www.w3.org/2000/svg\">\n",
                 width, svg_number(height));
  out += "<!-- Heat map drawn by sonde heatmap, after Brendan Gregg's trace2heatmap.pl. -->\n";
  fmt::format_to(std::back_inserter(out),
                 "<style type=\"text/css\">\ntext {{ font-family:{}; font-size:{}px; }}\n"
                 "#map rect:hover {{ stroke:black; stroke-width:0.5; }}\n</style>\n",
                 attribute_text(style.fonttype), style.fontsize);
  fmt::format_to(std::back_inserter(out),
                 "<script type=\"text/ecmascript\"><![CDATA[\nvar hm = {{ accstats: {} }};\n",
                 style.accstats ? 1 : 0);
  out += kScript;
  out += "]]></script>\n";
  fmt::format_to(std::back_inserter(out),
                 "<rect id=\"bkg\" x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"rgb(255,255,255)\"/>\n",
                 width, svg_number(height));
  fmt::format_to(std::back_inserter(out),
                 "<text text-anchor=\"middle\" x=\"{}\" y=\"{}\" style=\"font-size:{}px\">{}</text>\n",
                 width / 2, svg_number(fs * 2), style.fontsize + 5, attribute_text(style.title));
  fmt::format_to(std::back_inserter(out), "<text x=\"{}\" y=\"{}\">Time</text>\n", width / 2,
                 svg_number(height - fs - 1));
  fmt::format_to(std::back_inserter(out), "<text id=\"details\" x=\"{}\" y=\"{}\"> </text>\n", kMapXpad,
                 svg_number(height - 2.5 * fs));

  double ytop = height - (ypad2 + static_cast<double>(map.rows) * box - box);
  double ybot = height - ypad2 + box;
  if (style.grid) {
    double right = kMapXpad + static_cast<double>(map.columns) * box;
    auto line = [&](double x1, double y1, double x2, double y2) {
      fmt::format_to(
          std::back_inserter(out),
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"rgb(230,230,230)\" stroke-width=\"1\"/>\n",
          svg_number(x1), svg_number(y1), svg_number(x2), svg_number(y2));
    };
    line(kMapXpad, ybot, right, ybot);
    line(kMapXpad, ytop, right, ytop);
    for (size_t s = 0; s < map.columns; s += 10) {
      double x = kMapXpad + static_cast<double>(s) * box;
      line(x, ybot, x, ytop);
      fmt::format_to(std::back_inserter(out),
                     "<text x=\"{}\" y=\"{}\" fill=\"rgb(190,190,190)\">{}s</text>\n", svg_number(x),
                     svg_number(ybot + fs), svg_number(static_cast<double>(s) * map.step_sec));
    }
  }

  out += "<g id=\"map\">\n";
  for (size_t s = 0; s < map.columns; ++s) {
    uint64_t total = 0;
    for (size_t l = 0; l < map.rows; ++l) total += map.at(s, l);
    uint64_t acc = 0;
    std::string time_range = svg_number(static_cast<double>(s) * map.step_sec);
    if (map.step_sec > 1)
      time_range += "-" + svg_number(static_cast<double>(s) * map.step_sec - 1 + map.step_sec);
    for (size_t l = 0; l < map.rows; ++l) {
      uint64_t c = map.at(s, l);
      if (c == 0) continue;
      acc += c;
      double x = kMapXpad + static_cast<double>(s) * box;
      double y = height - (ypad2 + static_cast<double>(l) * box);
      std::string range = svg_number(map.min_lat + static_cast<double>(l) * map.step_lat) + "-" +
                          svg_number(map.min_lat + static_cast<double>(l + 1) * map.step_lat) +
                          style.units_lat;
      fmt::format_to(
          std::back_inserter(out),
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" data-h=\"{}|{}|{}|{}|{}\"/>\n",
          svg_number(x), svg_number(y), box, box,
          linear_color(static_cast<double>(c) / static_cast<double>(map.largest_count)),
          attribute_text(time_range), attribute_text(range), c, acc, total);
    }
  }
  out += "</g>\n";
  if (style.grid) {
    fmt::format_to(std::back_inserter(out), "<text x=\"{}\" y=\"{}\" fill=\"rgb(60,60,60)\">{}{}</text>\n",
                   kMapXpad + 5, svg_number(ybot - fs + 4), svg_number(map.min_lat),
                   attribute_text(style.units_lat));
    fmt::format_to(std::back_inserter(out), "<text x=\"{}\" y=\"{}\" fill=\"rgb(60,60,60)\">{}{}</text>\n",
                   kMapXpad + 5, svg_number(ytop + fs + 4), svg_number(map.max_lat),
                   attribute_text(style.units_lat));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace sonde::output
