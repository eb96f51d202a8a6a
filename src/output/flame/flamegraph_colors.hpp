#pragma once
// flamegraph.pl's palettes: hot, mem, io, and the multi-palettes (java, js, perl, wakeup, chain)
// that pick a hue per frame kind from the name and its annotation (_[k] kernel, _[j] JIT,
// _[i] inline, _[w] waker), plus red/green/blue/aqua/yellow/purple/orange; and the
// differential scale (red grew, blue shrank).
#include <cstdint>
#include <string>
#include <string_view>

namespace sonde::output {

struct Rgb {
  int r = 0, g = 0, b = 0;
};

bool is_known_palette(std::string_view palette);
// `hash_by_name`: flamegraph.pl's --hash (hues by a hash of the name that weights its first
// characters); otherwise a stable per-name variation.
Rgb frame_color(std::string_view palette, std::string_view name, bool hash_by_name);
// `delta` of at most `max_delta` in magnitude; `negate` swaps the hues.
Rgb delta_color(double delta, double max_delta, bool negate);
std::string css_color(Rgb color);  // "#rrggbb"

// The background gradient per palette (--bgcolors default): {top, bottom}.
struct Background {
  std::string top, bottom;
};
Background default_background(std::string_view palette);

}  // namespace sonde::output
