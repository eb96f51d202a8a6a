// sonde heatmap [options] [FILE] [-o out.svg]: a latency heat map from "time latency" lines, as
// trace2heatmap.pl draws it; --offsets draws the sub-second offset map (seconds along x, the
// offset within each second up y) from timestamps or perf script text.
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/flame_input.hpp"
#include "analysis/heatmap.hpp"
#include "cli/command.hpp"
#include "output/heatmap_svg.hpp"
#include "output/svg_file.hpp"

namespace sonde::cli {

namespace {

int fail_with(std::string_view message, int status = 1) {
  fmt::print(stderr, "sonde heatmap: {}\n", message);
  return status;
}

}  // namespace

int cmd_heatmap(int argc, char** argv) {
  CLI::App app{"Draw a latency heat map (time on x, latency on y, count as colour)", "sonde heatmap"};
  analysis::HeatMapOptions options;
  output::HeatMapStyle style;
  std::string input_path, output_path, units_time;
  double max_lat = 0, step_lat = 0;
  long max_col = -1;
  bool offsets = false;
  app.add_option("file", input_path, "\"time latency\" lines, or timestamps with --offsets (default: stdin)");
  app.add_option("-o,--output", output_path, "Write the SVG here (default: stdout)");
  app.add_flag("--offsets", offsets,
               "Sub-second offset map: timestamps (s) or perf script text; x seconds, y microseconds into the second");
  app.add_option("--unitstime", units_time, "Units of the time column: s (default), ms, us or ns");
  app.add_option("--unitslat,--unitslabel", style.units_lat, "Label of the latency units (us, ms, ...)");
  app.add_option("--minlat", options.min_lat, "Smallest latency to include");
  app.add_option("--maxlat", max_lat, "Largest latency to include (default: the largest seen)");
  app.add_option("--steplat", step_lat, "Latency per row, instead of --rows");
  app.add_option("--rows", options.rows, "Number of latency rows (default 50)");
  app.add_option("--stepsec", options.step_sec, "Seconds per column (fractions allowed; default 1)");
  app.add_option("--maxcol", max_col, "Draw at most this many columns");
  app.add_option("--title", style.title, "Title text");
  app.add_option("--fonttype", style.fonttype, "Font (default Verdana)");
  app.add_option("--fontsize", style.fontsize, "Font size (default 12)");
  app.add_option("--boxsize", style.boxsize, "Box size in pixels (default 8)");
  app.add_flag("--grid", style.grid, "Draw grid lines");
  app.add_flag("--accstats", style.accstats, "Show accumulated counts per column on hover");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int status = app.exit(error);
    return status == 0 ? 0 : 129;
  }
  if (units_time.empty() || units_time == "s") options.time_divisor = 1;
  else if (units_time == "ms") options.time_divisor = 1e3;
  else if (units_time == "us") options.time_divisor = 1e6;
  else if (units_time == "ns") options.time_divisor = 1e9;
  else return fail_with(fmt::format("--unitstime '{}': use s, ms, us or ns", units_time), 129);
  if (max_lat > 0) options.max_lat = max_lat;
  if (step_lat > 0) options.step_lat = step_lat;
  if (max_col >= 0) options.max_col = max_col;
  if (style.boxsize <= 0 || style.fontsize <= 0) return fail_with("--boxsize and --fontsize must be positive", 129);

  auto input = analysis::TextInput::open(input_path);
  if (!input) return fail_with(input.error().message);
  if (input->kind() == analysis::InputKind::perf_data)
    // perf.data input (event pairs, sample times): wired once the session layer reads samples.
    return fail_with(analysis::perf_data_not_yet_message("heatmap", input->name()));

  analysis::HeatMapBinner binner;
  size_t skipped;
  if (offsets) {
    skipped = analysis::read_offset_timestamps(input->text(), binner);
    options.time_divisor = 1;
    options.min_lat = 0;
    options.max_lat = analysis::kOffsetAxisMicros;
    if (style.units_lat.empty()) style.units_lat = "us";
    if (style.title == "Latency Heat Map") style.title = "Sub-second Offset Heat Map";
  } else {
    skipped = analysis::read_latency_pairs(input->text(), binner);
  }
  if (skipped) fmt::print(stderr, "sonde heatmap: skipped {} lines without {}\n", skipped, offsets ? "a timestamp" : "two numbers");
  auto map = binner.bin(options);
  if (!map) return fail_with(map.error().message);
  if (auto written = output::write_document(output_path, output::render_heatmap_svg(*map, style)); !written)
    return fail_with(written.error().message);
  return 0;
}

}  // namespace sonde::cli
