// sonde heatmap [options] [FILE] [-o out.svg]: a latency heat map, as trace2heatmap.pl draws
// it, from "time latency" lines or from pairs of tracepoint samples in a perf.data file;
// --offsets draws the sub-second offset map (seconds along x, the offset within each second up
// y) from timestamps, perf script text or a perf.data file's samples.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "pipeline/heatmap_run.hpp"

namespace sonde::cli {

namespace {

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
  pipeline::HeatmapRunOptions run;
  analysis::HeatMapOptions& options = run.map;
  output::HeatMapStyle& style = run.style;
  std::string units_time;
  double max_lat = 0, step_lat = 0;
  long max_col = -1;
  app.footer(kPairsHelp);
  app.add_option("file", run.input_path,
                 "\"time latency\" lines, a perf.data file, or timestamps with --offsets (default: stdin)");
  app.add_option("-o,--output", run.output_path, "Write the SVG here (default: stdout)");
  app.add_flag(
      "--offsets", run.offsets,
      "Sub-second offset map: timestamps (s) or perf script text; x seconds, y microseconds into the second");
  app.add_option("--unitstime", units_time,
                 "Units of the time column of text input: s (default), ms, us or ns");
  app.add_option(
      "--unitslat,--unitslabel", style.units_lat,
      "Label of the latency units (us, ms, ...); for perf.data the unit: ns, us (default), ms or s");
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
  app.add_option("--start", run.pairs.start_event,
                 "perf.data: the tracepoint that starts each latency (system:name)");
  app.add_option("--end", run.pairs.end_event, "perf.data: the tracepoint that ends it");
  app.add_option("--key", run.start_key,
                 "perf.data: fields matching an end to its start (default: the thread)");
  app.add_option("--end-key", run.end_key,
                 "perf.data: the end event's names for the --key fields, where they differ");
  app.add_option("--comm", run.comms,
                 "perf.data: only pairs whose start ran in these commands (comma separated)");
  app.add_option("--pid", run.pids, "perf.data: only pairs whose start ran in these processes");
  app.add_option("--tid", run.tids, "perf.data: only pairs whose start ran in these threads");
  app.add_flag("--dump", run.dump,
               "perf.data: print the pairs as \"time latency\" lines (trace2heatmap.pl's input), no SVG");
  if (auto exit_code = parse_command_line(app, argc, argv, "heatmap", AfterOptions::nothing))
    return *exit_code;
  auto divisor = analysis::time_divisor_of(units_time);
  if (!divisor) return report_error("heatmap", divisor.error());
  options.time_divisor = *divisor;
  if (max_lat > 0) options.max_lat = max_lat;
  if (step_lat > 0) options.step_lat = step_lat;
  if (max_col >= 0) options.max_col = max_col;
  if (style.boxsize <= 0 || style.fontsize <= 0)
    return report_usage_error("heatmap", "--boxsize and --fontsize must be positive");

  Diagnostics diagnostics(
      [](const Diagnostics::Message& message) { fmt::print(stderr, "sonde heatmap: {}\n", message.text); });
  if (auto drawn = pipeline::draw_heatmap(std::move(run), diagnostics); !drawn)
    return report_error("heatmap", drawn.error());
  return 0;
}

}  // namespace sonde::cli
