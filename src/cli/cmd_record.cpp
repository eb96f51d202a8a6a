// sonde record: perf record's options; pipeline/record_to_file does the recording.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <optional>

#include "capture/signals.hpp"
#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "pipeline/record_to_file.hpp"
#include "pipeline/sdt_cache.hpp"

namespace sonde::cli {

int cmd_record(int argc, char** argv) {
  pipeline::RecordToFileOptions record;
  capture::RecordOptions& sampling = record.record;
  pipeline::RecordTargetSpec& target = record.target;
  EventOptions event_options;
  std::string call_graph;
  bool all_cpus = false, callchain = false, quiet = false, no_inherit = false, timestamps = false;
  bool compress = false;
  uint64_t frequency = 0, period = 0;
  size_t mmap_pages = 0;
  CLI::App app{"Sample a command or the system into perf.data (perf record)", "sonde record"};
  add_event_options(app, event_options, "record");
  app.add_flag("-a,--all-cpus", all_cpus, "system-wide collection from all CPUs");
  app.add_option("-p,--pid", target.pids, "sample existing process ids (comma separated)");
  app.add_option("-t,--tid", target.tids, "sample existing thread ids (comma separated)");
  app.add_option("-G,--cgroup", target.cgroup, "with -a: only tasks in this cgroup");
  app.add_option("-C,--cpu", target.cpu_list, "list of CPUs to sample (implies -a)");
  app.add_option("-F,--freq", frequency, "sample at this frequency (Hz)");
  app.add_option("-c,--count", period, "sample every N events");
  app.add_flag("-g", callchain, "record call graphs (frame pointers)");
  app.add_option("--call-graph", call_graph, "fp, or dwarf[,stack size]");
  app.add_option("-o,--output", record.output, "output file ('-' for a pipe)");
  app.add_option("-m,--mmap-pages", mmap_pages, "ring buffer data pages per CPU (a power of two)");
  app.add_flag("-i,--no-inherit", no_inherit, "child tasks do not inherit counters");
  app.add_flag("-R,--raw-samples", sampling.raw_samples, "collect raw sample records");
  app.add_flag("-T,--timestamp", timestamps, "sample time stamps (always on)");
  app.add_flag("--switch-events", sampling.switch_events, "record context switch events");
  app.add_flag("-z", compress, "compress the records with zstd (level 1)");
  app.add_option("--compression-level", record.compression_level, "compress with zstd at this level (1-22)");
  app.add_flag("-q,--quiet", quiet, "don't print the summary");
  app.add_flag("-v,--verbose", record.verbose, "print the perf_event_attrs opened");
  bool off_cpu = false;
  std::optional<uint64_t> off_cpu_threshold;
  app.add_flag("--off-cpu", off_cpu, "also measure where threads block, as the offcpu-time event (BPF)");
  bool wakers = false;
  app.add_flag("--wakers", wakers,
               "with --off-cpu: also the thread that woke each block and its stack (the offcpu-waker event)");
  app.add_option("--off-cpu-thresh", off_cpu_threshold,
                 "with --off-cpu: blocks of at least this many ms are written as they end (default 500), "
                 "shorter ones totalled at the end");
  // From here the stop signals wait for the run: one that comes while the SDT probes, the output
  // file or the BPF programs are being set up ends the run through its usual path, which removes
  // and finishes them, instead of killing sonde half-way (tests/fixtures/signal_storm.sh).
  capture::BlockedSignals stop_signals;
  // Cached SDT markers the events name are defined for the run, and removed when it ends; so are
  // those a killed run left defined.
  pipeline::TemporarySdtProbes sdt_probes;
  if (auto defined = define_sdt_events(sdt_probes, argc, argv, "record"); !defined)
    return report_error("record", defined.error());
  if (auto exit_code = parse_command_line(app, argc, argv, "record")) return *exit_code;
  if (event_options.error) return report_error(*event_options.error);
  auto command = command_after_options(app, "record");
  if (!command) return report_error(command.error());
  sampling.command = *command;
  target.system_wide = all_cpus || !target.cpu_list.empty();
  if (sampling.command.empty() && !target.system_wide && target.pids.empty() && target.tids.empty())
    return report_usage_error("record",
                              "nothing to sample; give a command (sonde record -- CMD), -p, -t or -a");
  if (!target.cgroup.empty() && !target.system_wide)
    return report_usage_error("record", "--cgroup filters system-wide sampling: add -a or -C");
  if (frequency && period) return report_usage_error("record", "-F and -c exclude each other; give one");
  if (app.count("-F") && frequency == 0)
    return report_usage_error("record", "frequency and count are zero, aborting; give -F a positive rate");

  if (off_cpu_threshold && !off_cpu)
    return report_usage_error("record", "--off-cpu-thresh goes with --off-cpu");
  if (wakers && !off_cpu) return report_usage_error("record", "--wakers goes with --off-cpu");
  if (off_cpu) {
    capture::OffCpuSettings settings;
    if (off_cpu_threshold) settings.threshold_ms = *off_cpu_threshold;
    settings.follow_children = !no_inherit;
    settings.wakers = wakers;
    record.off_cpu = settings;
  }
  record.events = std::move(event_options.events);
  if (frequency) sampling.frequency = frequency;
  if (period) sampling.period = period;
  if (callchain) sampling.call_graph = capture::CallGraph::frame_pointer;
  if (!call_graph.empty())
    if (auto set = pipeline::set_call_graph(call_graph, sampling); !set)
      return report_error("record", set.error());
  if (mmap_pages & (mmap_pages - 1))
    return report_usage_error("record", "-m needs a power of two number of pages");
  sampling.sample_cpu = target.system_wide;
  sampling.inherit = !no_inherit;
  if (mmap_pages) sampling.mmap_pages = mmap_pages;
  if (compress && !record.compression_level) record.compression_level = 1;
  record.cmdline = {"sonde"};
  for (int i = 0; i < argc; ++i) record.cmdline.push_back(argv[i]);

  auto diagnostics = Diagnostics::printing_to(stderr);
  bool to_pipe = record.output == "-";
  auto result = pipeline::record_to_file(std::move(record), diagnostics);
  if (!result && to_pipe && result.error().sys_errno == EPIPE) {
    // The reader of standard output went away (`| head`): perf dies of SIGPIPE, status 141.
    report_error("record", Error{"standard output was closed by its reader (EPIPE); recording stopped"});
    return 128 + SIGPIPE;
  }
  if (!result) return report_error("record", result.error());
  if (result->run.lost > 0)
    fmt::print(stderr,
               "Warning:\nProcessed {} samples and lost {} samples; use a larger buffer (-m) or a lower -F\n",
               result->run.samples, result->run.lost);
  if (result->off_cpu_lost > 0)
    fmt::print(stderr,
               "Warning:\nLost {} off-CPU blocks: the profiler's maps or buffers were full, or the kernel "
               "skipped it\n",
               result->off_cpu_lost);
  if (!quiet) fmt::print(stderr, "{}\n", pipeline::record_summary_line(*result));
  return result->run.exit_status;
}

}  // namespace sonde::cli
