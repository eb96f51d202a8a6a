#include "pipeline/script_run.hpp"

#include <cstdio>
#include <memory>

#include "analysis/report/record_stats.hpp"
#include "analysis/script/dlfilter.hpp"
#include "base/progress.hpp"
#include "kernel/cpus.hpp"
#include "output/perf_header.hpp"
#include "output/report/record_stats_text.hpp"
#include "output/script/raw_dump.hpp"
#include "session/session.hpp"
#include "unwind/dwarf_unwinder.hpp"

namespace sonde::pipeline {

Result<analysis::ScriptFilter> parse_script_filter(const ScriptFilterSpec& spec) {
  analysis::ScriptFilter filter;
  // Percent slices need the file's sample times: run_script parses them once it is open.
  if (!spec.time.empty() && spec.time.find('%') == std::string::npos) {
    auto ranges = analysis::parse_time_ranges(spec.time);
    if (!ranges) return fail_usage("--time: " + ranges.error().message);
    filter.times = *ranges;
  }
  if (!spec.cpus.empty()) {
    auto cpus = kernel::parse_cpu_list(spec.cpus);
    if (!cpus) return fail_usage("-C: " + cpus.error().message);
    for (int cpu : *cpus) {
      if (cpu < 0) continue;
      if (filter.cpus.size() <= static_cast<size_t>(cpu)) filter.cpus.resize(static_cast<size_t>(cpu) + 1);
      filter.cpus[static_cast<size_t>(cpu)] = true;
    }
  }
  filter.comms = analysis::split_list(spec.comms);
  auto pids = analysis::parse_id_list(spec.pids, "--pid");
  if (!pids) return fail_usage(pids.error().message);
  filter.pids = *pids;
  auto tids = analysis::parse_id_list(spec.tids, "--tid");
  if (!tids) return fail_usage(tids.error().message);
  filter.tids = *tids;
  filter.dsos = analysis::split_comma_list(spec.dsos);
  if (!spec.symbols.empty()) filter.set_symbol_list(spec.symbols);
  filter.address_range = spec.address_range;
  return filter;
}

unsigned kernel_max_stack() {
  std::FILE* file = std::fopen("/proc/sys/kernel/perf_event_max_stack", "r");
  unsigned value = 127;
  if (file != nullptr) {
    if (std::fscanf(file, "%u", &value) != 1) value = 127;
    std::fclose(file);
  }
  return value;
}

Result<int> run_script(ScriptRunOptions options, Diagnostics& diagnostics) {
  auto session = session::Session::open(options.input, diagnostics);
  if (!session) return tl::unexpected(session.error());
  // Its lines stream to stdout: progress only when they go elsewhere.
  if (!stdout_is_terminal()) session->show_progress(options.progress_label);
  output::ScriptOutput out(stdout);
  if (options.header || options.header_only) {
    output::append_header_info(session->reader(), options.input, out.buffer(), options.show_info);
    if (options.header_only) return 0;
  }
  if (options.time_slices.find('%') != std::string::npos) {
    std::optional<std::pair<uint64_t, uint64_t>> sample_times;
    if (const auto& known = session->reader().features().sample_time)
      sample_times = std::pair{known->first, known->last};
    auto ranges = analysis::parse_time_slices(options.time_slices, sample_times);
    if (!ranges) return tl::unexpected(ranges.error());
    options.script.filter.times = std::move(*ranges);
  }
  if (!options.script.filter.cpus.empty() && !session->reader().is_pipe()) {
    bool any_cpu = false;
    for (const auto& event : session->reader().attrs().events())
      any_cpu |= (event.attr.sample_type & PERF_SAMPLE_CPU) != 0;
    if (!any_cpu) return fail("the file's events carry no CPU; record with -a or -C to filter by CPU");
  }

  if (!options.instruction_trace_option.empty()) {
    bool aux = false;
    for (const auto& event : session->reader().attrs().events())
      aux |= (event.attr.sample_type & PERF_SAMPLE_AUX) != 0 || event.attr.aux_output;
    if (!aux)
      return failf(
          "{} shows an instruction trace, and the file has none (no AUX area data); record "
          "with an instruction tracer (-e intel_pt// or cs_etm//) on a machine that has one",
          options.instruction_trace_option);
    return failf("{}: sonde script does not decode instruction traces yet", options.instruction_trace_option);
  }

  uint64_t sample_types = 0, branch_types = 0;
  for (const auto& event : session->reader().attrs().events()) {
    sample_types |= event.attr.sample_type;
    if (event.attr.sample_type & PERF_SAMPLE_BRANCH_STACK) branch_types |= event.attr.branch_sample_type;
  }
  if (options.itrace && (sample_types & PERF_SAMPLE_AUX))
    return fail("sonde script does not decode AUX area traces (--itrace) yet");
  if (options.stitch_lbr && !(branch_types & PERF_SAMPLE_BRANCH_CALL_STACK))
    diagnostics.warning(
        "can't find LBR callchains, so --stitch-lbr is off; record with --call-graph lbr for them");
  else if (options.stitch_lbr)
    return fail("sonde script does not stitch LBR callchains yet");

  // A script's perf_sample_srcline names the source file as DWARF does, not by its base name.
  if (options.python) options.symbols.full_source_path = true;
  output::ScriptSymbols symbols(options.symbols);
  // --call-graph dwarf samples: their user frames, unwound from the saved stack.
  unwind::DwarfUnwinder unwinder([&symbols](const session::Dso& dso) { return symbols.elf_path(dso); },
                                 options.script.max_stack);
  session->set_unwinder(&unwinder);
  // perf script takes records in file order, unsorted, when it shows the rounds or dumps unsorted.
  if (options.script.show_round_events || options.dump_unsorted) session->set_ordered(false);
  std::unique_ptr<analysis::Dlfilter> dlfilter;
  if (!options.dlfilter.empty()) {
    auto loaded = analysis::Dlfilter::load(options.dlfilter, options.dlargs);
    if (!loaded) return tl::unexpected(loaded.error());
    dlfilter = std::move(*loaded);
    if (auto started = dlfilter->start(); !started) return tl::unexpected(started.error());
    options.script.dlfilter = dlfilter.get();
  }
  std::unique_ptr<output::python::PythonScriptSink> python;
  if (options.python) {
    options.python->max_stack = options.script.max_stack;
    options.python->use_callchain = options.script.use_callchain;
    auto loaded = output::python::PythonScriptSink::load(*options.python, *session, symbols);
    if (!loaded) return tl::unexpected(loaded.error());
    python = std::move(*loaded);
    options.script.sample_sink = python.get();
  }
  analysis::ScriptFilter filter = options.script.filter;
  bool script_shows_lost = options.script.show_lost_events;
  output::ScriptPrinter printer(std::move(options.script), *session, symbols, out);
  if (auto prepared = printer.prepare(); !prepared) return tl::unexpected(prepared.error());
  if (python)
    if (std::optional<int> status = python->begin()) return *status;
  output::RawDumpPrinter dump(*session, symbols,
                              output::raw_dump_file_label(options.input, session->reader().is_pipe()), filter,
                              script_shows_lost, out, printer);
  if (options.dump_unsorted) dump.set_file_order();
  session::SessionVisitor& visitor =
      options.dump_raw || options.dump_unsorted ? static_cast<session::SessionVisitor&>(dump) : printer;
  auto processed = session->process(visitor);
  out.flush();
  if (dlfilter) {
    auto stopped = dlfilter->stop();
    std::fflush(stdout);  // what the filter printed last
    if (processed && !stopped) processed = stopped;
  }
  if (processed && printer.failure()) processed = tl::unexpected(*printer.failure());
  for (const std::string& line : printer.event_dump_summary())
    std::fprintf(stdout, "[ sonde script: %s ]\n", line.c_str());
  if (!processed) return tl::unexpected(processed.error());
  return python ? python->end() : 0;
}

std::string dlfilter_listing() {
  std::vector<analysis::DlfilterListing> listings;
  for (const std::string& directory : analysis::Dlfilter::search_directories())
    for (auto& listing : analysis::Dlfilter::list(directory)) listings.push_back(std::move(listing));
  return output::dlfilter_listing_text(listings);
}

Result<void> dump_report_trace(const std::string& input, Diagnostics& diagnostics) {
  auto session = session::Session::open(input, diagnostics);
  if (!session) return tl::unexpected(session.error());
  auto stats = analysis::count_records(input, diagnostics);
  if (!stats) return tl::unexpected(stats.error());
  output::ScriptOutput out(stdout);
  out.buffer().append(std::string_view(
      "# To display the perf.data header info, please use --header/--header-only options.\n#\n"));
  struct NoLines : session::SessionVisitor {
    void on_sample(const session::SampleEvent&) override {}
  } no_lines;
  output::ScriptSymbols symbols({});
  output::RawDumpPrinter dump(*session, symbols,
                              output::raw_dump_file_label(input, session->reader().is_pipe()), {}, false, out,
                              no_lines);
  dump.set_report_handlers();
  auto processed = session->process(dump);
  out.flush();
  if (!processed) return processed;
  output::print_record_stats(stdout, *stats, true);
  return {};
}

}  // namespace sonde::pipeline
