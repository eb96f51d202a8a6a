#include "output/flame/flamegraph_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "output/flame/flamegraph_colors.hpp"
#include "output/svg/svg_numbers.hpp"
#include "output/svg/xml_text.hpp"

namespace sonde::output {

namespace {

constexpr double kXpad = 10;
constexpr double kFramePad = 1;
constexpr std::string_view kSearchColor = "rgb(230,0,230)";

void append_escaped(std::string& out, std::string_view text, bool quotes) {
  append_xml_text(out, text, quotes ? XmlQuotes::double_ : XmlQuotes::none);
}

std::string escaped(std::string_view text) {
  std::string out;
  append_escaped(out, text, true);
  return out;
}

// "_[k]", "_[w]", "_[i]", "_[j]" at the end of a name: an annotation, not shown.
std::string_view without_annotation(std::string_view name) {
  if (name.size() >= 4 && name.substr(name.size() - 4, 2) == "_[" && name.back() == ']') {
    char kind = name[name.size() - 2];
    if (kind == 'k' || kind == 'w' || kind == 'i' || kind == 'j') return name.substr(0, name.size() - 4);
  }
  return name;
}

// Numbers as perl prints them (no trailing zeros).
std::string number(double value) { return fmt::format("{}", value); }

struct Geometry {
  double ypad1, ypad2, ypad3;
  double image_height;
  double width_per_time;
  double timemax;
};

std::string default_title(const FlameGraphStyle& style) {
  if (!style.title.empty()) return style.title;
  if (style.flamechart) return "Flame Chart";
  return style.inverted ? "Icicle Graph" : "Flame Graph";
}

Background background_of(const FlameGraphStyle& style) {
  if (style.bgcolors.empty()) return default_background(style.colors);
  if (style.bgcolors == "yellow") return {"#eeeeee", "#eeeeb0"};
  if (style.bgcolors == "blue") return {"#eeeeee", "#e0e0ff"};
  if (style.bgcolors == "green") return {"#eef2ee", "#e0ffe0"};
  if (style.bgcolors == "grey") return {"#f8f8f8", "#e8e8e8"};
  return {style.bgcolors, style.bgcolors};
}

void write_header(std::string& out, const FlameGraphStyle& style, double height, bool standalone) {
  auto background = background_of(style);
  if (standalone) {
    out += "<?xml version=\"1.0\" standalone=\"no\"?>\n";
    out +=
        "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
        "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n";
  }
  fmt::format_to(
      std::back_inserter(out),
      "<svg id=\"flamegraph\" version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "xmlns=\"http://www.w3.org/2000/svg\">\n",
      style.width, number(height));
  out += "<!-- Flame graph drawn by sonde flamegraph, after Brendan Gregg's flamegraph.pl. -->\n";
  fmt::format_to(std::back_inserter(out), "<!-- NOTES: {} -->\n", style.notes);
  fmt::format_to(std::back_inserter(out),
                 "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
                 "<stop stop-color=\"{}\" offset=\"5%\"/><stop stop-color=\"{}\" offset=\"95%\"/>"
                 "</linearGradient></defs>\n",
                 escaped(background.top), escaped(background.bottom));
  fmt::format_to(std::back_inserter(out),
                 "<style type=\"text/css\">\n"
                 "text {{ font-family:{0}; font-size:{1}px; fill:rgb(0,0,0); }}\n"
                 "#search, #ignorecase {{ opacity:0.1; cursor:pointer; }}\n"
                 "#search:hover, #search.show, #ignorecase:hover, #ignorecase.show {{ opacity:1; }}\n"
                 "#subtitle {{ text-anchor:middle; }}\n"
                 "#title {{ text-anchor:middle; font-size:{2}px; }}\n"
                 "#unzoom {{ cursor:pointer; }}\n"
                 "#frames > *:hover {{ stroke:black; stroke-width:0.5; cursor:pointer; }}\n"
                 ".hide {{ display:none; }}\n"
                 ".parent {{ opacity:0.5; }}\n"
                 "</style>\n",
                 escaped(style.fonttype), number(style.fontsize), number(style.fontsize + 5));
  fmt::format_to(
      std::back_inserter(out),
      "<script type=\"text/ecmascript\"><![CDATA[\nvar fg = {{ xpad: {}, fontsize: {}, fontwidth: {}, "
      "inverted: {}, nametype: \"{}\", searchcolor: \"{}\" }};\n",
      number(kXpad), number(style.fontsize), number(style.fontwidth), style.inverted ? 1 : 0,
      // JSON-ish string: the name type is plain text; quotes and backslashes escaped.
      [&] {
        std::string text;
        for (char c : style.nametype) {
          if (c == '"' || c == '\\') text += '\\';
          if (c == ']')
            text += "\\x5d";  // never close the CDATA section
          else
            text += c;
        }
        return text;
      }(),
      kSearchColor);
  out += flamegraph_script();
  out += "]]></script>\n";
}

void write_text(std::string& out, std::string_view id, double x, double y, std::string_view text,
                std::string_view extra = {}) {
  fmt::format_to(std::back_inserter(out), "<text id=\"{}\" x=\"{}\" y=\"{}\"{}{}>", id, number(x), number(y),
                 extra.empty() ? "" : " ", extra);
  append_escaped(out, text, false);
  out += "</text>\n";
}

}  // namespace

Result<void> set_minwidth(FlameGraphStyle& style, std::string_view text) {
  std::string_view number = text;
  style.minwidth_percent = number.ends_with('%');
  if (style.minwidth_percent) number.remove_suffix(1);
  if (number.empty() || number.find_first_not_of("0123456789.") != std::string_view::npos)
    return failf("--minwidth '{}' is not a number of pixels or N%", text);
  style.minwidth = std::strtod(std::string(number).c_str(), nullptr);
  return {};
}

Result<void> check_style(const FlameGraphStyle& style) {
  if (!is_known_palette(style.colors))
    return failf(
        "unknown palette '{}': use hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, "
        "yellow, purple or orange",
        style.colors);
  const auto& bg = style.bgcolors;
  bool hex = bg.size() == 7 && bg[0] == '#';
  if (!bg.empty() && bg != "yellow" && bg != "blue" && bg != "green" && bg != "grey" && !hex)
    return failf("unknown background '{}': use yellow, blue, green, grey or #rrggbb", bg);
  if (style.notes.find_first_of("<>") != std::string::npos) return fail("--notes cannot contain < or >");
  if (style.width <= 2 * kXpad)
    return failf("--width {} leaves no room to draw; use more than 20", style.width);
  if (style.frame_height <= 0) return fail("--height must be positive");
  if (style.minwidth < 0) return fail("--minwidth must not be negative");
  return {};
}

std::string render_empty_flamegraph_svg(const FlameGraphStyle& style) {
  std::string out;
  double height = style.fontsize * 5;
  out += "<?xml version=\"1.0\" standalone=\"no\"?>\n";
  fmt::format_to(std::back_inserter(out),
                 "<svg version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                 "xmlns=\"http://www.w3.org/2000/svg\">\n",
                 style.width, number(height));
  fmt::format_to(std::back_inserter(out),
                 "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">ERROR: No valid input provided to sonde "
                 "flamegraph.</text>\n",
                 style.width / 2, number(style.fontsize * 2));
  out += "</svg>\n";
  return out;
}

namespace {

std::string render(const analysis::FlameTree& tree, const FlameGraphStyle& style, bool standalone) {
  const auto& nodes = tree.nodes();
  const auto& names = tree.names();
  double timemax = tree.total();
  if (!(timemax > 0) || !std::isfinite(timemax)) {
    // Nothing to scale the frames by (no stacks, counts adding up to 0 or past a double): the
    // message flamegraph.pl draws for no input, inline in a page without the XML declaration.
    std::string empty = render_empty_flamegraph_svg(style);
    return standalone ? empty : empty.substr(empty.find('\n') + 1);
  }
  double width_per_time = (style.width - 2 * kXpad) / timemax;
  double minwidth_time =
      style.minwidth_percent ? timemax * style.minwidth / 100 : style.minwidth / width_per_time;

  // Start times, depth-first; frames narrower than minwidth (and so all below them) are dropped.
  struct Placed {
    uint32_t id;
    uint32_t depth;
    double start;
  };
  std::vector<Placed> kept, stack{{0, 0, 0}};
  std::vector<uint32_t> children;
  uint32_t depth_max = 0;
  while (!stack.empty()) {
    Placed placed = stack.back();
    stack.pop_back();
    const auto& node = nodes[placed.id];
    if (placed.id != 0 && node.value < minwidth_time) continue;
    kept.push_back(placed);
    depth_max = std::max(depth_max, placed.depth);
    tree.children(placed.id, children);
    double at = placed.start;
    size_t first = stack.size();
    for (uint32_t child : children) {
      stack.push_back({child, placed.depth + 1, at});
      at += nodes[child].value;
    }
    std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(first), stack.end());
  }

  double ypad1 = style.fontsize * 3, ypad2 = style.fontsize * 2 + 10, ypad3 = style.fontsize * 2;
  double height = (depth_max + 1) * style.frame_height + ypad1 + ypad2;
  if (!style.subtitle.empty()) height += ypad3;

  std::string out;
  out.reserve(kept.size() * 150 + 12000);
  write_header(out, style, height, standalone);
  fmt::format_to(std::back_inserter(out),
                 "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"url(#background)\"/>\n",
                 style.width, number(height));
  write_text(out, "title", style.width / 2, style.fontsize * 2, default_title(style));
  if (!style.subtitle.empty())
    write_text(out, "subtitle", style.width / 2, style.fontsize * 4, style.subtitle);
  write_text(out, "details", kXpad, height - ypad2 / 2, " ");
  write_text(out, "unzoom", kXpad, style.fontsize * 2, "Reset Zoom", "class=\"hide\"");
  write_text(out, "search", style.width - kXpad - 100, style.fontsize * 2, "Search");
  write_text(out, "ignorecase", style.width - kXpad - 16, style.fontsize * 2, "ic");
  write_text(out, "matched", style.width - kXpad - 100, height - ypad2 / 2, " ");

  out += "<g id=\"frames\">\n";
  double char_width = style.fontsize * style.fontwidth;
  double total_scaled = timemax * style.factor;
  // A frame's colour depends on its name alone, except in a differential graph: computed once
  // per name.
  std::vector<std::string> name_colors(tree.differential() ? 0 : names.size());
  for (const Placed& placed : kept) {
    uint32_t id = placed.id;
    const auto& node = nodes[id];
    std::string_view name = names[node.name];
    double stime = placed.start, etime = stime + node.value;
    double x1 = kXpad + stime * width_per_time, x2 = kXpad + etime * width_per_time;
    double y1, y2;
    if (!style.inverted) {
      y1 = height - ypad2 - (placed.depth + 1) * style.frame_height + kFramePad;
      y2 = height - ypad2 - placed.depth * style.frame_height;
    } else {
      y1 = ypad1 + placed.depth * style.frame_height;
      y2 = ypad1 + (placed.depth + 1) * style.frame_height - kFramePad;
    }
    double samples = std::round((etime - stime) * style.factor);
    std::string_view shown = without_annotation(name);

    out += "<g><title>";
    if (id == 0) {
      out += "all (";
      append_with_commas(out, samples);
      out += ' ';
      out += style.countname;
      out += ", 100%)";
    } else {
      append_escaped(out, shown, true);
      out += " (";
      append_with_commas(out, samples);
      out += ' ';
      out += style.countname;
      out += ", ";
      append_fixed(out, 100 * samples / total_scaled, 2);
      out += '%';
      if (tree.differential()) {
        double delta = style.negate ? -tree.delta(id) : tree.delta(id);
        out += "; ";
        if (delta > 0) out += '+';
        append_fixed(out, 100 * delta / total_scaled, 2);
        out += '%';
      }
      out += ')';
    }
    out += "</title><rect x=\"";

    auto color_of = [&] {
      Rgb color;
      if (name == "--") {
        color = {160, 160, 160};
      } else if (name == "-") {
        color = {200, 200, 200};
      } else if (tree.differential()) {
        color = delta_color(tree.delta(id), tree.max_delta(), style.negate);
      } else {
        color = frame_color(style.colors, name, style.hash);
      }
      return css_color(color);
    };
    // x and the width as flamegraph.pl prints them: both ends rounded to 0.1 first.
    auto units1 = fixed_units(x1, 1), units2 = fixed_units(x2, 1);
    if (units1 && units2) {
      append_units(out, *units1, 1);
      out += "\" y=\"";
      append_number(out, y1);
      out += "\" width=\"";
      append_units(out, *units2 - *units1, 1);
    } else {
      std::string rx1 = fmt::format("{:.1f}", x1), rx2 = fmt::format("{:.1f}", x2);
      out += rx1;
      out += "\" y=\"";
      append_number(out, y1);
      out += "\" width=\"";
      append_fixed(out, std::stod(rx2) - std::stod(rx1), 1);
    }
    out += "\" height=\"";
    append_fixed(out, y2 - y1, 1);
    out += "\" fill=\"";
    if (name_colors.empty()) {
      out += color_of();
    } else {
      std::string& color = name_colors[node.name];
      if (color.empty()) color = color_of();
      out += color;
    }
    out += "\" rx=\"2\" ry=\"2\"/>";
    auto chars = static_cast<size_t>((x2 - x1) / char_width);
    if (chars >= 3) {
      std::string_view label = id == 0 ? std::string_view("all") : shown;
      std::string_view kept_text = label.substr(0, chars);
      bool cut = chars < label.size();
      if (cut) kept_text.remove_suffix(2);
      out += "<text x=\"";
      append_fixed(out, x1 + 3, 2);
      out += "\" y=\"";
      append_number(out, 3 + (y1 + y2) / 2);
      out += "\">";
      append_escaped(out, kept_text, false);
      if (cut) out += "..";
      out += "</text>";
    }
    out += "</g>\n";
  }
  out += "</g>\n</svg>\n";
  return out;
}

}  // namespace

std::string render_flamegraph_svg(const analysis::FlameTree& tree, const FlameGraphStyle& style) {
  return render(tree, style, true);
}

std::string render_flamegraph_html(const analysis::FlameTree& tree, const FlameGraphStyle& style) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>";
  out += escaped(default_title(style));
  out +=
      "</title>\n<style>body { margin: 0; background: #fff; } svg { display: block; "
      "}</style>\n</head>\n<body>\n";
  out += render(tree, style, false);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace sonde::output
