#include "pipeline/heatmap_run.hpp"

#include "analysis/flame/flame_input.hpp"
#include "analysis/stacks/session_stacks.hpp"
#include "output/heatmap/latency_pairs_text.hpp"
#include "output/svg/svg_file.hpp"

namespace sonde::pipeline {

namespace {

// The offset map's axes: seconds along x, microseconds into the second up y.
void use_offset_axes(HeatmapRunOptions& options) {
  options.map.time_divisor = 1;
  options.map.min_lat = 0;
  options.map.max_lat = analysis::kOffsetAxisMicros;
  if (options.style.units_lat.empty()) options.style.units_lat = "us";
  if (options.style.title == "Latency Heat Map") options.style.title = "Sub-second Offset Heat Map";
}

}  // namespace

Result<void> draw_heatmap(HeatmapRunOptions options, Diagnostics& diagnostics) {
  auto input = analysis::TextInput::open(options.input_path);
  if (!input) return tl::unexpected(input.error());
  bool perf_data = input->kind() == analysis::InputKind::perf_data;
  if (perf_data && (options.input_path.empty() || options.input_path == "-"))
    return fail("perf.data on standard input: give the file's name instead");
  auto& pairs = options.pairs;
  bool pair_options = !pairs.start_event.empty() || !pairs.end_event.empty() || !options.start_key.empty() ||
                      !options.end_key.empty() || !options.comms.empty() || !options.pids.empty() ||
                      !options.tids.empty() || options.dump;
  if (pair_options && (!perf_data || options.offsets))
    return fail_usage(
        "--start, --end, --key, --end-key, --comm, --pid, --tid and --dump pick event pairs of a perf.data "
        "file "
        "(without --offsets)");

  analysis::HeatMapBinner binner;
  size_t skipped = 0;
  if (perf_data && !options.offsets) {
    pairs.start_key = analysis::split_list(options.start_key);
    pairs.end_key = analysis::split_list(options.end_key);
    pairs.threads.comms = analysis::split_list(options.comms);
    auto pid_list = analysis::parse_id_list(options.pids, "--pid");
    if (!pid_list) return fail_usage(pid_list.error().message);
    auto tid_list = analysis::parse_id_list(options.tids, "--tid");
    if (!tid_list) return fail_usage(tid_list.error().message);
    pairs.threads.pids = *pid_list;
    pairs.threads.tids = *tid_list;
    if (options.style.units_lat.empty()) options.style.units_lat = "us";
    const output::LatencyUnit* unit = output::find_latency_unit(options.style.units_lat);
    if (unit == nullptr)
      return fail_usage(fmt::format("--unitslat '{}': latencies from perf.data are in ns, us, ms or s",
                                    options.style.units_lat));
    auto matched = analysis::match_event_pairs(input->name(), pairs, diagnostics);
    if (!matched) return tl::unexpected(matched.error());
    if (options.dump)
      return output::write_document(options.output_path, output::latency_pairs_text(matched->pairs, *unit));
    analysis::add_latency_pairs(binner, matched->pairs, static_cast<double>(unit->nanoseconds));
    options.map.time_divisor = 1;
    options.map.fractional_rows = true;
  } else if (options.offsets && perf_data) {
    // Every sample's time straight from the file, as offsets-perf.pl reads perf script's.
    auto replayed = analysis::for_each_sample_time(
        input->name(),
        [&](uint64_t time_ns, std::string_view) {
          analysis::add_offset_timestamp(binner, static_cast<double>(time_ns) / 1e9);
        },
        diagnostics);
    if (!replayed) return replayed;
    use_offset_axes(options);
  } else if (options.offsets) {
    skipped = analysis::read_offset_timestamps(input->text(), binner);
    use_offset_axes(options);
  } else {
    skipped = analysis::read_latency_pairs(input->text(), binner);
  }
  if (skipped)
    diagnostics.warningf("skipped {} lines without {}", skipped,
                         options.offsets ? "a timestamp" : "two numbers");
  auto map = binner.bin(options.map);
  if (!map) return tl::unexpected(map.error());
  return output::write_document(options.output_path, output::render_heatmap_svg(*map, options.style));
}

}  // namespace sonde::pipeline
