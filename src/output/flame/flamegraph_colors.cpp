#include "output/flame/flamegraph_colors.hpp"

#include <fmt/format.h>

#include <array>

namespace sonde::output {

namespace {

// flamegraph.pl's namehash: early characters weigh most, a "module`" prefix is skipped.
double name_hash(std::string_view name) {
  // perl's s/.(.*?)`//: a "module`" prefix goes.
  if (size_t tick = name.find('`'); tick != std::string_view::npos && tick > 0) name = name.substr(tick + 1);
  double vector = 0, weight = 1, max = 1;
  int mod = 10;
  for (unsigned char c : name) {
    int i = c % mod;
    vector += (static_cast<double>(i) / (mod++ - 1)) * weight;
    max += weight;
    weight *= 0.70;
    if (mod > 12) break;
  }
  return 1 - vector / max;
}

// A stable value in [0, 1) per name and channel, in place of perl's rand seeded by the name.
double stable_hash(std::string_view name, uint32_t channel) {
  uint64_t h = 0xcbf29ce484222325ull ^ (channel * 0x9e3779b97f4a7c15ull);
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return static_cast<double>(h >> 11) / 9007199254740992.0;
}

bool ends_with(std::string_view text, std::string_view end) { return text.ends_with(end); }
bool has(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

std::string_view java_hue(std::string_view name) {
  if (ends_with(name, "_[j]")) return "green";
  if (ends_with(name, "_[i]")) return "aqua";
  // /^L?(java|javax|jdk|net|org|com|io|sun)\//: a Java package
  std::string_view package = name.starts_with('L') ? name.substr(1) : name;
  for (std::string_view prefix : {"java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/"})
    if (package.starts_with(prefix)) return "green";
  if (has(name, ":::")) return "green";
  if (has(name, "::")) return "yellow";
  if (ends_with(name, "_[k]")) return "orange";
  return "red";
}

std::string_view perl_hue(std::string_view name) {
  if (has(name, "::")) return "yellow";
  if (has(name, "Perl") || has(name, ".pl")) return "green";
  if (ends_with(name, "_[k]")) return "orange";
  return "red";
}

std::string_view js_hue(std::string_view name) {
  if (ends_with(name, "_[j]")) return has(name, "/") ? "green" : "aqua";
  if (has(name, "::")) return "yellow";
  size_t slash = name.find('/');
  if (slash != std::string_view::npos && name.find(".js", slash) != std::string_view::npos) return "green";
  if (has(name, ":")) return "aqua";
  if (name == " ") return "green";
  if (has(name, "_[k]")) return "orange";
  return "red";
}

}  // namespace

bool is_known_palette(std::string_view palette) {
  static constexpr std::array kPalettes = {"hot",  "mem",  "io",     "wakeup", "chain",
                                           "java", "js",   "perl",   "red",    "green",
                                           "blue", "aqua", "yellow", "purple", "orange"};
  for (std::string_view known : kPalettes)
    if (palette == known) return true;
  return false;
}

Rgb frame_color(std::string_view palette, std::string_view name, bool hash_by_name) {
  double v1, v2, v3;
  if (hash_by_name) {
    v1 = name_hash(name);
    std::string reversed(name.rbegin(), name.rend());
    v2 = v3 = name_hash(reversed);
  } else {
    v1 = stable_hash(name, 1);
    v2 = stable_hash(name, 2);
    v3 = stable_hash(name, 3);
  }
  auto scaled = [](int base, int range, double v) { return base + static_cast<int>(range * v); };
  if (palette == "hot") return {scaled(205, 50, v3), scaled(0, 230, v1), scaled(0, 55, v2)};
  if (palette == "mem") return {0, scaled(190, 50, v2), scaled(0, 210, v1)};
  if (palette == "io") {
    int r = scaled(80, 60, v1);
    return {r, r, scaled(190, 55, v2)};
  }
  std::string_view hue = palette;
  if (palette == "java") hue = java_hue(name);
  if (palette == "perl") hue = perl_hue(name);
  if (palette == "js") hue = js_hue(name);
  if (palette == "wakeup") hue = "aqua";
  if (palette == "chain") hue = has(name, "_[w]") ? "aqua" : "blue";
  if (hue == "red") {
    int x = scaled(50, 80, v1);
    return {scaled(200, 55, v1), x, x};
  }
  if (hue == "green") {
    int x = scaled(50, 60, v1);
    return {x, scaled(200, 55, v1), x};
  }
  if (hue == "blue") {
    int x = scaled(80, 60, v1);
    return {x, x, scaled(205, 50, v1)};
  }
  if (hue == "yellow") {
    int x = scaled(175, 55, v1);
    return {x, x, scaled(50, 20, v1)};
  }
  if (hue == "purple") {
    int x = scaled(190, 65, v1);
    return {x, scaled(80, 60, v1), x};
  }
  if (hue == "aqua") return {scaled(50, 60, v1), scaled(165, 55, v1), scaled(165, 55, v1)};
  if (hue == "orange") return {scaled(190, 65, v1), scaled(90, 65, v1), 0};
  return {0, 0, 0};
}

Rgb delta_color(double delta, double max_delta, bool negate) {
  if (negate) delta = -delta;
  Rgb color{255, 255, 255};
  if (delta > 0) {
    color.g = color.b = static_cast<int>(210 * (max_delta - delta) / max_delta);
  } else if (delta < 0) {
    color.r = color.g = static_cast<int>(210 * (max_delta + delta) / max_delta);
  }
  return color;
}

std::string css_color(Rgb color) { return fmt::format("#{:02x}{:02x}{:02x}", color.r, color.g, color.b); }

Background default_background(std::string_view palette) {
  if (palette == "mem") return {"#eef2ee", "#e0ffe0"};
  if (palette == "io" || palette == "wakeup" || palette == "chain") return {"#eeeeee", "#e0e0ff"};
  if (palette == "red" || palette == "green" || palette == "blue" || palette == "aqua" ||
      palette == "yellow" || palette == "purple" || palette == "orange")
    return {"#f8f8f8", "#e8e8e8"};
  return {"#eeeeee", "#eeeeb0"};
}

}  // namespace sonde::output
