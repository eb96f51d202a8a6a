// sonde heatmap [options] [FILE] [-o out.svg]: a latency heat map, as trace2heatmap.pl draws
// it, from "time latency" lines or from pairs of tracepoint samples in a perf.data file;
// --offsets draws the sub-second offset map (seconds along x, the offset within each second up
// y) from timestamps, perf script text or a perf.data file's samples.
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/heatmap/event_pairs_file.hpp"
#include "analysis/flame/flame_input.hpp"
#include "analysis/heatmap/heatmap.hpp"
#include "analysis/stacks/session_stacks.hpp"
#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "output/heatmap/heatmap_svg.hpp"
#include "output/heatmap/latency_pairs_text.hpp"
#include "output/svg/svg_file.hpp"

namespace sonde::cli {

namespace {

int fail_with(std::string_view message, int status = 1) {
  fmt::print(stderr, "sonde heatmap: {}\n", message);
  return status;
}

constexpr const char* kPairsHelp = R"(
perf.data input: the latency map is drawn from pairs of tracepoint samples, each start matched
to the end that completes it by a key. Recognised without options, in this order:
  block:block_rq_issue -> block:block_rq_complete     matched by dev,sector
  raw_syscalls:sys_enter -> raw_syscalls:sys_exit      matched by thread
  syscalls:sys_enter_X -> syscalls:sys_exit_X          matched by thread (every X the file has)
Any two tracepoints: --start EVENT --end EVENT [--key FIELD[,FIELD]] [--end-key FIELD[,FIELD]],
e.g. --start sched:sched_wakeup --end sched:sched_switch --key pid --end-key next_pid.
Key names are payload fields of the formats the file carries, else tid, pid or cpu of the
sample. Times are seconds; latencies are in --unitslat units (ns, us, ms or s; default us).
  sonde record -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -- CMD
  sonde heatmap perf.data -o map.svg)";

}  // namespace

int cmd_heatmap(int argc, char** argv) {
  CLI::App app{"Draw a latency heat map (time on x, latency on y, count as colour)", "sonde heatmap"};
  analysis::HeatMapOptions options;
  output::HeatMapStyle style;
  std::string input_path, output_path, units_time;
  double max_lat = 0, step_lat = 0;
  long max_col = -1;
  bool offsets = false, dump = false;
  analysis::EventPairRequest pairs;
  std::string start_key, end_key, comms, pids, tids;
  app.footer(kPairsHelp);
  app.add_option("file", input_path,
                 "\"time latency\" lines, a perf.data file, or timestamps with --offsets (default: stdin)");
  app.add_option("-o,--output", output_path, "Write the SVG here (default: stdout)");
  app.add_flag("--offsets", offsets,
               "Sub-second offset map: timestamps (s) or perf script text; x seconds, y microseconds into the second");
  app.add_option("--unitstime", units_time, "Units of the time column of text input: s (default), ms, us or ns");
  app.add_option("--unitslat,--unitslabel", style.units_lat, "Label of the latency units (us, ms, ...); for perf.data the unit: ns, us (default), ms or s");
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
  app.add_option("--start", pairs.start_event, "perf.data: the tracepoint that starts each latency (system:name)");
  app.add_option("--end", pairs.end_event, "perf.data: the tracepoint that ends it");
  app.add_option("--key", start_key, "perf.data: fields matching an end to its start (default: the thread)");
  app.add_option("--end-key", end_key, "perf.data: the end event's names for the --key fields, where they differ");
  app.add_option("--comm", comms, "perf.data: only pairs whose start ran in these commands (comma separated)");
  app.add_option("--pid", pids, "perf.data: only pairs whose start ran in these processes");
  app.add_option("--tid", tids, "perf.data: only pairs whose start ran in these threads");
  app.add_flag("--dump", dump, "perf.data: print the pairs as \"time latency\" lines (trace2heatmap.pl's input), no SVG");
  if (auto exit_code = parse_command_line(app, argc, argv, "heatmap", AfterOptions::nothing)) return *exit_code;
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
  bool perf_data = input->kind() == analysis::InputKind::perf_data;
  if (perf_data && (input_path.empty() || input_path == "-"))
    return fail_with("perf.data on standard input: give the file's name instead");
  bool pair_options = !pairs.start_event.empty() || !pairs.end_event.empty() || !start_key.empty() || !end_key.empty() ||
                      !comms.empty() || !pids.empty() || !tids.empty() || dump;
  if (pair_options && (!perf_data || offsets))
    return fail_with("--start, --end, --key, --end-key, --comm, --pid, --tid and --dump pick event pairs of a perf.data file (without --offsets)", 129);

  analysis::HeatMapBinner binner;
  size_t skipped = 0;
  if (perf_data && !offsets) {
    pairs.start_key = analysis::split_list(start_key);
    pairs.end_key = analysis::split_list(end_key);
    pairs.threads.comms = analysis::split_list(comms);
    auto pid_list = analysis::parse_id_list(pids, "--pid");
    if (!pid_list) return fail_with(pid_list.error().message, 129);
    auto tid_list = analysis::parse_id_list(tids, "--tid");
    if (!tid_list) return fail_with(tid_list.error().message, 129);
    pairs.threads.pids = *pid_list;
    pairs.threads.tids = *tid_list;
    if (style.units_lat.empty()) style.units_lat = "us";
    const output::LatencyUnit* unit = output::find_latency_unit(style.units_lat);
    if (unit == nullptr)
      return fail_with(fmt::format("--unitslat '{}': latencies from perf.data are in ns, us, ms or s", style.units_lat), 129);
    auto matched = analysis::match_event_pairs(input->name(), pairs);
    if (!matched) return report_error(matched.error().with_context("sonde heatmap"));
    if (dump) {
      if (auto written = output::write_document(output_path, output::latency_pairs_text(matched->pairs, *unit)); !written)
        return fail_with(written.error().message);
      return 0;
    }
    analysis::add_latency_pairs(binner, matched->pairs, static_cast<double>(unit->nanoseconds));
    options.time_divisor = 1;
    options.fractional_rows = true;
  } else if (offsets && perf_data) {
    // Every sample's time straight from the file, as offsets-perf.pl reads perf script's.
    auto replayed = analysis::for_each_sample_time(input->name(), [&](uint64_t time_ns, std::string_view) {
      analysis::add_offset_timestamp(binner, static_cast<double>(time_ns) / 1e9);
    });
    if (!replayed) return fail_with(replayed.error().message);
    options.time_divisor = 1;
    options.min_lat = 0;
    options.max_lat = analysis::kOffsetAxisMicros;
    if (style.units_lat.empty()) style.units_lat = "us";
    if (style.title == "Latency Heat Map") style.title = "Sub-second Offset Heat Map";
  } else if (offsets) {
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
