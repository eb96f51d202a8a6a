// sonde record: perf record's options, wired from event parsing through sampling to perf.data.
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "capture/record_run.hpp"
#include "capture/record_sideband.hpp"
#include "capture/tasks.hpp"
#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "events/parse_events.hpp"
#include "kernel/cgroup.hpp"
#include "kernel/cpus.hpp"
#include "perfdata/compressor.hpp"
#include "perfdata/machine_facts.hpp"
#include "format/synthesize.hpp"
#include "perfdata/tracing_data.hpp"
#include "perfdata/writer.hpp"

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

// perf's default event is cycles; without a hardware PMU (as in most VMs) it falls back to cpu-clock.
std::string default_event() {
  return path_exists("/sys/bus/event_source/devices/cpu/type") ? "cycles" : "cpu-clock";
}

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

  capture::RecordOptions record;
  record.command = options.command;
  if (options.frequency) record.frequency = options.frequency;
  if (options.period) record.period = options.period;
  if (options.callchain) record.call_graph = capture::CallGraph::frame_pointer;
  if (!options.call_graph.empty()) {
    auto mode = parse_call_graph(options.call_graph, record.dwarf_stack_size);
    if (!mode) return report_error(mode.error());
    record.call_graph = *mode;
  }
  record.sample_cpu = system_wide;
  record.raw_samples = options.raw;
  record.switch_events = options.switch_events;
  record.inherit = !options.no_inherit;
  if (options.mmap_pages) {
    if ((options.mmap_pages & (options.mmap_pages - 1)) != 0)
      return report_error({"sonde record: -m needs a power of two number of pages", Error::Kind::usage});
    record.mmap_pages = options.mmap_pages;
  }
  record.target.kind =
      system_wide ? capture::SamplingTarget::Kind::system : capture::SamplingTarget::Kind::workload;
  if (attach && options.command.empty() && !system_wide) {
    // -p takes every thread of each process; -t the threads given.
    record.target.kind = capture::SamplingTarget::Kind::threads;
    bool processes = !options.pids.empty();
    auto ids = capture::parse_task_ids(processes ? options.pids : options.tids,
                                       processes ? "process id" : "thread id");
    if (!ids) return report_error({"sonde record: " + ids.error().message, Error::Kind::usage});
    for (pid_t pid : *ids) {
      if (processes) {
        auto threads = capture::process_threads(pid);
        if (!threads) return report_error(threads.error().with_context("sonde record"));
        record.target.tids.insert(record.target.tids.end(), threads->begin(), threads->end());
      } else if (!capture::task_alive(pid)) {
        return report_error({fmt::format("sonde record: no thread with id {}", pid)});
      } else {
        record.target.tids.push_back(pid);
      }
    }
  }
  if (!options.cpu_list.empty()) {
    auto cpus = kernel::parse_cpu_list(options.cpu_list);
    if (!cpus) return report_error(cpus.error().with_context("sonde record"));
    record.target.cpus = *cpus;
  } else {
    record.target.cpus = kernel::online_cpus();
  }

  UniqueFd cgroup;
  if (!options.cgroup.empty()) {
    auto opened = kernel::open_perf_cgroup(options.cgroup);
    if (!opened) return report_error(opened.error().with_context("sonde record"));
    cgroup = std::move(*opened);
    record.target.cgroup_fd = cgroup.get();
  }

  if (options.event_options.events.empty()) {
    if (auto parsed = events::parse_events(default_event(), options.event_options.events); !parsed)
      return report_error(parsed.error());
  }
  auto attrs = capture::record_attrs(options.event_options.events, record);
  if (options.verbose)
    for (size_t i = 0; i < attrs.size(); ++i)
      fmt::print(stderr, "{}: type {} config {:#x} sample_type {:#x} {} {} read_format {:#x}\n",
                 options.event_options.events[i].name, attrs[i].type, attrs[i].config, attrs[i].sample_type,
                 attrs[i].freq ? "freq" : "period", attrs[i].sample_period, attrs[i].read_format);

  // perf keeps the previous file as perf.data.old.
  bool to_pipe = options.output == "-";
  record.output_on_stdout = to_pipe;
  if (!to_pipe && path_exists(options.output)) {
    if (std::rename(options.output.c_str(), (options.output + ".old").c_str()) != 0)
      return report_error({fmt::format("sonde record: cannot rename {} to {}.old: {}", options.output,
                                       options.output, errno_text(errno))});
  }
  auto writer = to_pipe ? perfdata::PerfDataWriter::to_pipe(STDOUT_FILENO)
                        : perfdata::PerfDataWriter::create(options.output);
  if (!writer) return report_error(writer.error().with_context("sonde record"));
  auto remove_partial = [&] {
    if (!to_pipe) ::unlink(options.output.c_str());
  };

  perfdata::FeatureSet features;
  perfdata::fill_machine_features(perfdata::gather_machine_facts(), features);
  features.version = "6.1.sonde";
  std::vector<std::string> cmdline = {"sonde"};
  for (int i = 0; i < argc; ++i) cmdline.push_back(argv[i]);
  features.cmdline = cmdline;
  std::vector<std::pair<std::string, std::string>> tracepoints;
  for (const auto& event : options.event_options.events)
    if (event.is_tracepoint()) tracepoints.emplace_back(event.tracepoint_system, event.tracepoint_name);
  if (!tracepoints.empty()) {
    // perf script formats tracepoint payloads from these format files.
    auto tracing_data = perfdata::build_tracing_data(tracepoints);
    if (!tracing_data) return report_error(tracing_data.error().with_context("sonde record"));
    features.tracing_data = std::move(*tracing_data);
  }

  // Which DSOs samples hit, for BUILD_ID; it follows the side-band and the streamed records.
  capture::DsoCollector dsos(attrs[0].sample_type);
  // The workload's pid is known once it is forked; the side-band names it.
  auto sideband_target = [&](pid_t workload_pid) {
    capture::SamplingTarget target = record.target;
    if (workload_pid > 0) target.tids = {workload_pid};
    return target;
  };
  auto on_opened = [&](const std::vector<std::vector<uint64_t>>& ids, pid_t pid) -> Result<void> {
    std::vector<perfdata::AttrWithIds> with_ids;
    std::vector<perfdata::EventDesc> descriptions;
    for (size_t i = 0; i < attrs.size(); ++i) {
      with_ids.push_back({attrs[i], ids[i]});
      descriptions.push_back({attrs[i], options.event_options.events[i].name, ids[i]});
    }
    features.event_desc = descriptions;
    if (auto written = writer->write_attrs(with_ids); !written) return written;
    if (to_pipe)
      if (auto written = writer->write_pipe_features(features); !written) return written;
    auto sideband = capture::synthesize_record_sideband(attrs[0], sideband_target(pid), attrs[0].mmap_data);
    if (!sideband) return tl::unexpected(sideband.error());
    dsos.observe_all(*sideband);
    return writer->append(sideband->data(), sideband->size());
  };
  const std::string finished_round = perfdata::make_finished_round();
  // -z: a round's records are compressed together into COMPRESSED records (perf's layout).
  std::optional<perfdata::Compressor> compressor;
  if (options.compress || options.compression_level) {
    auto created = perfdata::Compressor::create(options.compression_level ? options.compression_level : 1);
    if (!created) return report_error(created.error().with_context("sonde record"));
    compressor.emplace(std::move(*created));
  }
  std::string round, compressed;
  capture::CaptureSink sink{
      [&](const void* data, size_t size) -> Result<void> {
        dsos.observe(data, size);
        if (!compressor) return writer->append(data, size);
        round.append(static_cast<const char*>(data), size);
        return {};
      },
      [&]() -> Result<void> {
        if (compressor && !round.empty()) {
          compressed.clear();
          if (auto done = compressor->compress(round.data(), round.size(), compressed); !done) return done;
          round.clear();
          if (auto written = writer->append(compressed.data(), compressed.size()); !written) return written;
        }
        return writer->append(finished_round.data(), finished_round.size());
      },
  };
  std::vector<std::string> filters;
  for (const auto& event : options.event_options.events) filters.push_back(event.filter);
  auto result = capture::run_record(attrs, filters, record, on_opened, sink);
  if (!result) {
    remove_partial();
    return report_error(result.error().with_context("sonde record"));
  }
  // Build-ids of what the recording mapped, read once now rather than by re-reading the samples.
  auto dso_list = dsos.dsos();
  features.build_ids = format::BuildIdCache().entries(dso_list);
  if (compressor) {
    perfdata::CompressedFeature compressed_feature;
    compressed_feature.level =
        static_cast<uint32_t>(options.compression_level ? options.compression_level : 1);
    compressed_feature.ratio =
        compressor->bytes_out() ? static_cast<uint32_t>(compressor->bytes_in() / compressor->bytes_out()) : 0;
    compressed_feature.mmap_len =
        static_cast<uint32_t>(record.mmap_pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE)));
    features.compressed = compressed_feature;
  }
  if (auto finalized = writer->finalize(features); !finalized)
    return report_error(finalized.error().with_context("sonde record"));

  if (result->lost > 0)
    fmt::print(stderr,
               "Warning:\nProcessed {} samples and lost {} samples; use a larger buffer (-m) or a lower -F\n",
               result->samples, result->lost);
  if (!options.quiet) {
    double megabytes = static_cast<double>(writer->data_size()) / (1024.0 * 1024.0);
    // perf's closing line, with its compression summary under -z.
    std::string compression;
    if (compressor && compressor->bytes_out() > 0)
      compression = fmt::format(
          ", compressed (original {:.3f} MB, ratio is {:.3f})",
          static_cast<double>(compressor->bytes_in()) / (1024.0 * 1024.0),
          static_cast<double>(compressor->bytes_in()) / static_cast<double>(compressor->bytes_out()));
    fmt::print(stderr, "[ sonde record: Captured and wrote {:.3f} MB {} ({} samples){} ]\n", megabytes,
               to_pipe ? "(pipe)" : options.output, result->samples, compression);
  }
  return result->exit_status;
}

}  // namespace sonde::cli
