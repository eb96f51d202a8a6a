// sonde record: perf record's options; pipeline/record_to_file does the recording.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "base/strings.hpp"
#include "capture/record_run.hpp"
#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "pipeline/record_to_file.hpp"

namespace sonde::cli {

namespace {

struct RecordCliOptions {
  EventOptions event_options;
  std::string cpu_list, output = "perf.data", call_graph, pids, tids, cgroup;
  bool all_cpus = false, callchain = false, quiet = false, verbose = false, no_inherit = false;
  bool raw = false, switch_events = false, timestamps = false;
  uint64_t frequency = 0, period = 0;
  bool compress = false;
  int compression_level = 0;
  size_t mmap_pages = 0;
  std::vector<std::string> command;
};

Result<capture::CallGraph> parse_call_graph(const std::string& text, uint32_t& stack_size) {
  auto parts = split(text, ',');
  if (parts[0] == "fp") return capture::CallGraph::frame_pointer;
  if (parts[0] == "dwarf") {
    if (parts.size() > 1) {
      auto size = parse_uint(parts[1], 0);
      if (!size || *size == 0 || *size > 65528 || *size % 8 != 0)
        return fail_usage("sonde record: --call-graph dwarf,SIZE needs a multiple of 8 up to 65528");
      stack_size = static_cast<uint32_t>(*size);
    }
    return capture::CallGraph::dwarf;
  }
  return fail_usage(fmt::format("sonde record: unknown --call-graph mode '{}'; use fp or dwarf[,size]", parts[0]));
}

}  // namespace

int cmd_record(int argc, char** argv) {
  RecordCliOptions options;
  CLI::App app{"Sample a command or the system into perf.data (perf record)", "sonde record"};
  add_event_options(app, options.event_options, "record");
  app.add_flag("-a,--all-cpus", options.all_cpus, "system-wide collection from all CPUs");
  app.add_option("-p,--pid", options.pids, "sample existing process ids (comma separated)");
  app.add_option("-t,--tid", options.tids, "sample existing thread ids (comma separated)");
  app.add_option("-G,--cgroup", options.cgroup, "with -a: only tasks in this cgroup");
  app.add_option("-C,--cpu", options.cpu_list, "list of CPUs to sample (implies -a)");
  app.add_option("-F,--freq", options.frequency, "sample at this frequency (Hz)");
  app.add_option("-c,--count", options.period, "sample every N events");
  app.add_flag("-g", options.callchain, "record call graphs (frame pointers)");
  app.add_option("--call-graph", options.call_graph, "fp, or dwarf[,stack size]");
  app.add_option("-o,--output", options.output, "output file ('-' for a pipe)");
  app.add_option("-m,--mmap-pages", options.mmap_pages, "ring buffer data pages per CPU (a power of two)");
  app.add_flag("-i,--no-inherit", options.no_inherit, "child tasks do not inherit counters");
  app.add_flag("-R,--raw-samples", options.raw, "collect raw sample records");
  app.add_flag("-T,--timestamp", options.timestamps, "sample time stamps (always on)");
  app.add_flag("--switch-events", options.switch_events, "record context switch events");
  app.add_flag("-z", options.compress, "compress the records with zstd (level 1)");
  app.add_option("--compression-level", options.compression_level, "compress with zstd at this level (1-22)");
  app.add_flag("-q,--quiet", options.quiet, "don't print the summary");
  app.add_flag("-v,--verbose", options.verbose, "print the perf_event_attrs opened");
  if (auto exit_code = parse_command_line(app, argc, argv, "record")) return *exit_code;
  if (options.event_options.error) return report_error(*options.event_options.error);
  auto command = command_after_options(app, "record");
  if (!command) return report_error(command.error());
  options.command = *command;
  bool system_wide = options.all_cpus || !options.cpu_list.empty();
  bool attach = !options.pids.empty() || !options.tids.empty();
  if (options.command.empty() && !system_wide && !attach)
    return report_error(
        {"sonde record: nothing to sample; give a command (sonde record -- CMD), -p, -t or -a", Error::Kind::usage});
  if (!options.cgroup.empty() && !system_wide)
    return report_error({"sonde record: --cgroup filters system-wide sampling: add -a or -C", Error::Kind::usage});
  if (options.frequency && options.period)
    return report_error({"sonde record: -F and -c exclude each other; give one", Error::Kind::usage});

  pipeline::RecordToFileOptions record;
  record.events = std::move(options.event_options.events);
  record.record.command = options.command;
  if (options.frequency) record.record.frequency = options.frequency;
  if (options.period) record.record.period = options.period;
  if (options.callchain) record.record.call_graph = capture::CallGraph::frame_pointer;
  if (!options.call_graph.empty()) {
    auto mode = parse_call_graph(options.call_graph, record.record.dwarf_stack_size);
    if (!mode) return report_error(mode.error());
    record.record.call_graph = *mode;
  }
  record.record.sample_cpu = system_wide;
  record.record.raw_samples = options.raw;
  record.record.switch_events = options.switch_events;
  record.record.inherit = !options.no_inherit;
  if (options.mmap_pages) {
    if ((options.mmap_pages & (options.mmap_pages - 1)) != 0)
      return report_error({"sonde record: -m needs a power of two number of pages", Error::Kind::usage});
    record.record.mmap_pages = options.mmap_pages;
  }
  record.target = {system_wide, options.cpu_list, options.pids, options.tids, options.cgroup};
  record.output = options.output;
  if (options.compress || options.compression_level)
    record.compression_level = options.compression_level ? options.compression_level : 1;
  record.cmdline = {"sonde"};
  for (int i = 0; i < argc; ++i) record.cmdline.push_back(argv[i]);
  record.verbose = options.verbose;

  auto diagnostics = Diagnostics::printing_to(stderr);
  auto result = pipeline::record_to_file(std::move(record), diagnostics);
  if (!result) return report_error(result.error().with_context("sonde record"));
  if (result->run.lost > 0)
    fmt::print(stderr,
               "Warning:\nProcessed {} samples and lost {} samples; use a larger buffer (-m) or a lower -F\n",
               result->run.samples, result->run.lost);
  if (!options.quiet) fmt::print(stderr, "{}\n", pipeline::record_summary_line(*result));
  return result->run.exit_status;
}

}  // namespace sonde::cli
