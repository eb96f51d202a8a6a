#include "pipeline/record_to_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <optional>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "base/unique_fd.hpp"
#include "capture/open_event.hpp"
#include "capture/record_sideband.hpp"
#include "capture/tasks.hpp"
#include "events/parse_events.hpp"
#include "format/build_ids.hpp"
#include "format/synthesize.hpp"
#include "kernel/cgroup.hpp"
#include "kernel/cpus.hpp"
#include "perfdata/compressor.hpp"
#include "perfdata/machine_facts.hpp"
#include "perfdata/tracing_data.hpp"
#include "perfdata/writer.hpp"
#include "pipeline/record_kcore.hpp"
#include "symbols/kallsyms_cache.hpp"

namespace sonde::pipeline {

namespace {

// The sched_switch tracepoint's calling glue in the running kernel's text, whose frames lead the
// off-CPU program's stacks on some kernels (6.18 here: __traceiter_sched_switch above
// __schedule). From the kallsyms cache; none when the kernel's symbols cannot be read.
std::vector<std::pair<uint64_t, uint64_t>> sched_switch_glue() {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  auto symbols = symbols::load_kallsyms_cached("/proc/kallsyms");
  if (!symbols) return ranges;
  for (const symbols::Symbol& symbol : (*symbols)->kernel.symbols()) {
    std::string_view name = symbol.name;
    if (name == "__traceiter_sched_switch" || name == "__bpf_trace_sched_switch" ||
        name.starts_with("bpf_trace_run"))
      ranges.emplace_back(symbol.start, symbol.start + symbol.size);
  }
  return ranges;
}

void note_attrs(const std::vector<events::EventSpec>& events, const std::vector<perf_event_attr>& attrs,
                Diagnostics& diagnostics) {
  for (size_t i = 0; i < attrs.size(); ++i)
    diagnostics.notef("{}: type {} config {:#x} sample_type {:#x} {} {} read_format {:#x}", events[i].name,
                      attrs[i].type, attrs[i].config, attrs[i].sample_type, attrs[i].freq ? "freq" : "period",
                      attrs[i].sample_period, attrs[i].read_format);
}

// -k's clock: its resolution and a pair of readings that tie it to the wall clock (perf's
// CLOCKID and CLOCK_DATA features).
void add_clock_features(int clockid, perfdata::FeatureSet& features) {
  timespec resolution{}, wall{}, sampling{};
  if (::clock_getres(clockid, &resolution) == 0)
    features.clockid_res_ns =
        static_cast<uint64_t>(resolution.tv_sec) * 1000000000u + static_cast<uint64_t>(resolution.tv_nsec);
  if (::clock_gettime(CLOCK_REALTIME, &wall) == 0 && ::clock_gettime(clockid, &sampling) == 0) {
    auto ns = [](const timespec& t) {
      return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
    };
    features.clock_data = perfdata::ClockData{static_cast<uint32_t>(clockid), ns(wall), ns(sampling)};
  }
}

// perf's dummy event, which carries the side-band while -D holds the sampling events back.
events::EventSpec tracking_event() { return events::dummy_event("dummy:HG"); }

// --timestamp-filename: perf's suffix, local time to the hundredth of a second.
std::string timestamped(const std::string& output) {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  std::tm local{};
  ::localtime_r(&now.tv_sec, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &local);
  return fmt::format("{}.{}{:02}", output, stamp, now.tv_nsec / 10000000);
}

// Each event's group leader: its own index unless it was given in a group ({a,b}, --group); the
// events sonde adds (-D's tracking event, --off-cpu's) stand alone.
std::vector<int> group_leaders(const std::vector<events::EventSpec>& events) {
  std::vector<int> leaders;
  for (size_t i = 0; i < events.size(); ++i)
    leaders.push_back(events[i].in_group ? events[i].group_leader : static_cast<int>(i));
  return leaders;
}

Result<perfdata::FeatureSet> header_features(const RecordToFileOptions& options) {
  perfdata::FeatureSet features;
  perfdata::fill_machine_features(perfdata::gather_machine_facts(), features);
  features.version = "6.1.sonde";
  features.cmdline = options.cmdline;
  std::vector<std::pair<std::string, std::string>> tracepoints;
  for (const auto& event : options.events)
    if (event.is_tracepoint()) tracepoints.emplace_back(event.tracepoint_system, event.tracepoint_name);
  if (!tracepoints.empty()) {
    // perf script formats tracepoint payloads from these format files.
    auto tracing_data = perfdata::build_tracing_data(tracepoints);
    if (!tracing_data) return tl::unexpected(tracing_data.error());
    features.tracing_data = std::move(*tracing_data);
  }
  if (options.record.clockid) add_clock_features(*options.record.clockid, features);
  // GROUP_DESC: each group of more than one event ({a,b} or --group).
  const std::vector<int> leaders = group_leaders(options.events);
  std::vector<perfdata::GroupDesc> groups;
  for (size_t i = 0; i < leaders.size(); ++i) {
    if (leaders[i] != static_cast<int>(i)) continue;
    auto members = static_cast<uint32_t>(std::count(leaders.begin(), leaders.end(), leaders[i]));
    if (members > 1) groups.push_back({"{anon_group}", static_cast<uint32_t>(i), members});
  }
  if (!groups.empty()) features.groups = std::move(groups);
  return features;
}

}  // namespace

std::string default_event() {
  return path_exists("/sys/bus/event_source/devices/cpu/type") ? "cycles" : "cpu-clock";
}

Result<void> resolve_record_target(const RecordTargetSpec& spec, capture::RecordOptions& record,
                                   UniqueFd& cgroup) {
  bool attach = !spec.pids.empty() || !spec.tids.empty();
  record.target.kind =
      spec.system_wide ? capture::SamplingTarget::Kind::system : capture::SamplingTarget::Kind::workload;
  if (attach && !spec.system_wide) {
    // -p takes every thread of each process; -t the threads given. A command given as well only
    // says how long to sample them, as in perf (`-p PID -- sleep 5`).
    record.target.kind = capture::SamplingTarget::Kind::threads;
    bool processes = !spec.pids.empty();
    auto ids =
        capture::parse_task_ids(processes ? spec.pids : spec.tids, processes ? "process id" : "thread id");
    if (!ids) return fail_usage(ids.error().message);
    for (pid_t pid : *ids) {
      if (processes) {
        auto threads = capture::process_threads(pid);
        if (!threads) return tl::unexpected(threads.error());
        record.target.tids.insert(record.target.tids.end(), threads->begin(), threads->end());
      } else if (!capture::task_alive(pid)) {
        return failf("no thread with id {}", pid);
      } else {
        record.target.tids.push_back(pid);
      }
    }
  }
  if (spec.per_thread && !spec.system_wide) {
    record.target.cpus = {-1};  // every thread on any CPU, one buffer per thread
  } else if (!spec.cpu_list.empty()) {
    auto cpus = kernel::parse_cpu_list(spec.cpu_list);
    if (!cpus) return tl::unexpected(cpus.error());
    record.target.cpus = *cpus;
  } else {
    record.target.cpus = kernel::online_cpus();
  }
  if (!spec.cgroup.empty()) {
    auto opened = kernel::open_perf_cgroup(spec.cgroup);
    if (!opened) return tl::unexpected(opened.error());
    cgroup = std::move(*opened);
    record.target.cgroup_fd = cgroup.get();
  }
  return {};
}

Result<RecordToFileOptions::SwitchOutput> parse_switch_output(const std::string& text) {
  RecordToFileOptions::SwitchOutput spec;
  if (text.empty() || text == "signal") {
    spec.on_signal = true;
    return spec;
  }
  char unit = text.back();
  if (unit == 's' || unit == 'm' || unit == 'h' || unit == 'd') {
    auto count = parse_uint(std::string_view(text).substr(0, text.size() - 1), 10);
    long scale = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : 86400;
    if (count && *count > 0) {
      spec.period = std::chrono::seconds(static_cast<long>(*count) * scale);
      return spec;
    }
  } else if (auto bytes = parse_size(text); bytes && *bytes > 0) {
    spec.bytes = *bytes;
    return spec;
  }
  return fail_usage(fmt::format(
      "bad --switch-output '{}'; give signal, a size (100M: B, K, M, G) or a time (30s: s, m, h, d)", text));
}

Result<uint64_t> check_frequency(uint64_t frequency, bool strict) {
  auto text = read_file("/proc/sys/kernel/perf_event_max_sample_rate");
  auto maximum = text ? parse_uint(trim(*text), 10) : std::nullopt;
  if (frequency == 0 || !maximum || frequency <= *maximum) return frequency;
  if (strict)
    return failf(
        "maximum frequency rate ({} Hz) exceeded; use -F with a lower value or raise "
        "/proc/sys/kernel/perf_event_max_sample_rate",
        *maximum);
  return static_cast<uint64_t>(*maximum);
}

Result<void> set_call_graph(const std::string& text, capture::RecordOptions& record) {
  auto parts = split(text, ',');
  if (parts[0] == "fp") {
    record.call_graph = capture::CallGraph::frame_pointer;
    // perf's fp,N: N frames at most when N is below the system's limit; a word that is no number is 0.
    if (parts.size() > 1) {
      uint64_t size = parse_uint(parts[1], 0).value_or(0);
      auto limit_text = read_file("/proc/sys/kernel/perf_event_max_stack");
      uint64_t limit = limit_text ? parse_uint(trim(*limit_text), 10).value_or(127) : 127;
      if (size < limit) record.max_stack = static_cast<uint16_t>(size);
    }
    return {};
  }
  if (parts[0] != "dwarf")
    return fail_usage(fmt::format("unknown --call-graph mode '{}'; use fp or dwarf[,size]", parts[0]));
  if (parts.size() > 1) {
    auto size = parse_uint(parts[1], 0);
    if (!size || *size == 0 || *size > 65528 || *size % 8 != 0)
      return fail_usage("--call-graph dwarf,SIZE needs a multiple of 8 up to 65528");
    record.dwarf_stack_size = static_cast<uint32_t>(*size);
  }
  record.call_graph = capture::CallGraph::dwarf;
  return {};
}

Result<RecordToFileResult> record_to_file(RecordToFileOptions options, Diagnostics& diagnostics) {
  capture::RecordOptions& record = options.record;
  UniqueFd cgroup;
  if (auto resolved = resolve_record_target(options.target, record, cgroup); !resolved)
    return tl::unexpected(resolved.error());
  if (options.kcore)
    if (auto readable = check_kcore_readable(); !readable) return tl::unexpected(readable.error());
  if (options.events.empty()) {
    if (auto parsed = events::parse_events(default_event(), options.events); !parsed)
      return tl::unexpected(parsed.error());
  }
  // The fallbacks' notes are perf's -v lines.
  Diagnostics kept;
  capture::fall_back_to_user_only(options.events, options.verbose ? diagnostics : kept);
  if (auto fallen = capture::fall_back_to_cpu_clock(options.events, options.verbose ? diagnostics : kept);
      !fallen)
    return tl::unexpected(fallen.error());
  // Before the events whose index is taken as the last (--off-cpu's, -D's tracking event).
  if (options.kcore) options.events.push_back(text_poke_event());
  if (options.off_cpu) options.events.push_back(capture::off_cpu_event());
  if (record.delay && !options.off_cpu) {
    options.events.push_back(tracking_event());
    record.tracking_event_last = true;
  }
  std::optional<capture::ControlChannel> control;
  if (!options.control.empty()) {
    auto opened = capture::ControlChannel::open(options.control);
    if (!opened) return tl::unexpected(opened.error());
    control.emplace(std::move(*opened));
    record.control = &*control;
  }
  record.notes = &diagnostics;
  if (options.timestamp_filename && options.output != "-") options.output = timestamped(options.output);
  record.group_leaders = group_leaders(options.events);
  auto attrs = capture::record_attrs(options.events, record);
  const size_t tracking = record.tracking_event_last ? attrs.size() - 1 : 0;
  // The attrs opened; the off-CPU event's differs from the one the file declares.
  std::vector<perf_event_attr> opened = attrs;
  std::optional<capture::OffCpuRecording> off_cpu;
  size_t off_cpu_index = attrs.size() - 1;
  if (options.off_cpu) {
    attrs[off_cpu_index] = capture::off_cpu_file_attr(attrs[off_cpu_index]);
    opened[off_cpu_index] = capture::off_cpu_opened_attr(attrs[off_cpu_index]);
    options.off_cpu->tracepoint_glue = sched_switch_glue();
    auto loaded = capture::OffCpuRecording::open(*options.off_cpu, record.target, attrs[off_cpu_index],
                                                 opened[off_cpu_index]);
    if (!loaded) return tl::unexpected(loaded.error());
    off_cpu.emplace(std::move(*loaded));
  }
  if (options.verbose) note_attrs(options.events, opened, diagnostics);

  // perf keeps the previous file as perf.data.old (a non-empty one: -o /dev/null stays a device).
  bool to_pipe = options.output == "-";
  record.output_on_stdout = to_pipe;
  std::string kcore_directory;
  if (options.kcore) {
    auto data = make_recording_directory(options.output);
    if (!data) return tl::unexpected(data.error());
    kcore_directory = options.output;
    options.output = *data;
  } else if (!to_pipe && is_nonempty_regular_file(options.output)) {
    if (std::rename(options.output.c_str(), (options.output + ".old").c_str()) != 0)
      return failf("cannot rename {} to {}.old: {}", options.output, options.output, errno_text(errno));
  }
  auto writer = to_pipe ? perfdata::PerfDataWriter::to_pipe(STDOUT_FILENO)
                        : perfdata::PerfDataWriter::create(options.output);
  if (!writer) return tl::unexpected(writer.error());

  auto features = header_features(options);
  if (!features) return tl::unexpected(features.error());

  // Which DSOs samples hit, for BUILD_ID; it follows the side-band and the streamed records.
  capture::DsoCollector dsos(attrs[0].sample_type);
  // The workload's pid is known once it is forked; the side-band names it.
  auto sideband_target = [&](pid_t workload_pid) {
    capture::SamplingTarget target = record.target;
    if (target.kind == capture::SamplingTarget::Kind::workload && workload_pid > 0)
      target.tids = {workload_pid};
    return target;
  };
  // --switch-output starts each new file with the attrs and the tasks' side-band again.
  std::vector<perfdata::AttrWithIds> file_attrs;
  pid_t workload_pid = -1;
  auto on_opened = [&](const capture::SamplingSession& session, pid_t pid) -> Result<void> {
    const auto& ids = session.ids();
    std::vector<perfdata::AttrWithIds> with_ids;
    std::vector<perfdata::EventDesc> descriptions;
    for (size_t i = 0; i < attrs.size(); ++i) {
      with_ids.push_back({attrs[i], ids[i]});
      descriptions.push_back({attrs[i], options.events[i].name, ids[i]});
    }
    if (off_cpu)
      for (const auto& event : off_cpu->file_only_events()) {
        with_ids.push_back({event.attr, {event.id}});
        descriptions.push_back({event.attr, event.name, {event.id}});
      }
    features->event_desc = descriptions;
    file_attrs = with_ids;
    workload_pid = pid;
    if (!kcore_directory.empty())
      if (auto copied = copy_kcore_into(std::exchange(kcore_directory, std::string())); !copied)
        return copied;
    if (auto written = writer->write_attrs(with_ids); !written) return written;
    if (to_pipe)
      if (auto written = writer->write_pipe_features(*features); !written) return written;
    if (!options.tail_synthesize) {
      auto sideband = capture::synthesize_record_sideband(attrs[tracking], sideband_target(pid),
                                                          attrs[tracking].mmap_data, options.synth);
      if (!sideband) return tl::unexpected(sideband.error());
      dsos.observe_all(*sideband);
      if (auto written = writer->append(sideband->data(), sideband->size()); !written) return written;
    }
    if (off_cpu) return off_cpu->start(session, off_cpu_index, pid);
    return {};
  };
  // The tasks as they are now, with their maps: what a new --switch-output file starts with, and
  // what --tail-synthesize ends each file with.
  auto write_current_sideband = [&]() -> Result<void> {
    capture::SamplingTarget now = record.target;
    if (now.kind == capture::SamplingTarget::Kind::workload) {
      if (workload_pid <= 0) return {};
      now.kind = capture::SamplingTarget::Kind::threads;
      auto threads = capture::process_threads(workload_pid);
      if (!threads) return {};  // the workload has exited: nothing left to describe
      now.tids = *threads;
    }
    auto sideband =
        capture::synthesize_record_sideband(attrs[tracking], now, attrs[tracking].mmap_data, options.synth);
    if (!sideband) return tl::unexpected(sideband.error());
    dsos.observe_all(*sideband);
    return writer->append(sideband->data(), sideband->size());
  };
  const std::string finished_round = perfdata::make_finished_round();
  // -z: a round's records are compressed together into COMPRESSED records (perf's layout).
  std::optional<perfdata::Compressor> compressor;
  if (options.compression_level) {
    auto created = perfdata::Compressor::create(options.compression_level);
    if (!created) return tl::unexpected(created.error());
    compressor.emplace(std::move(*created));
  }
  std::string round, compressed, rewritten;
  auto write_records = [&](const void* data, size_t size) -> Result<void> {
    dsos.observe(data, size);
    if (!compressor) return writer->append(data, size);
    round.append(static_cast<const char*>(data), size);
    return {};
  };
  capture::CaptureSink sink{
      [&](const void* data, size_t size) -> Result<void> {
        // The off-CPU event's records carry the BPF program's; they become perf's samples.
        if (off_cpu && off_cpu->rewrite(data, size, rewritten))
          return rewritten.empty() ? Result<void>{} : write_records(rewritten.data(), rewritten.size());
        return write_records(data, size);
      },
      [&]() -> Result<void> {
        if (compressor && !round.empty()) {
          compressed.clear();
          if (auto done = compressor->compress(round.data(), round.size(), compressed); !done) return done;
          round.clear();
          if (auto written = writer->append(compressed.data(), compressed.size()); !written) return written;
        }
        // --tail-synthesize: no round ends before the side-band at the end, so that readers
        // order all of it (time 0) before every sample, and each sample's map is known.
        if (!options.tail_synthesize)
          if (auto written = writer->append(finished_round.data(), finished_round.size()); !written)
            return written;
        // A pipe's reader gets each round as it ends (perf report -i -, a live consumer), and a
        // reader that went away is found out now, as perf finds it by SIGPIPE. A file gets it
        // too, so that a recording killed outright keeps what was captured.
        return writer->flush();
      },
  };
  // BUILD_ID: the DSOs samples hit (perf's default), every DSO mapped (--buildid-all), or none (-B).
  auto build_id_entries = [&]() -> std::optional<std::vector<perfdata::BuildIdEntry>> {
    if (options.build_ids == RecordToFileOptions::BuildIds::none) return std::nullopt;
    return format::BuildIdCache().entries(
        options.build_ids == RecordToFileOptions::BuildIds::all ? dsos.all_dsos() : dsos.dsos());
  };
  // --switch-output: the file so far is finished and renamed OUTPUT.<time>; the oldest beyond
  // --switch-max-files goes.
  std::vector<std::string> dumped;
  auto close_file = [&]() -> Result<void> {
    if (options.tail_synthesize)
      if (auto written = write_current_sideband(); !written) return written;
    features->build_ids = build_id_entries();
    if (auto [first, last] = dsos.sample_times(); last != 0)
      features->sample_time = perfdata::SampleTime{first, last};
    if (auto finalized = writer->finalize(*features); !finalized) return finalized;
    // Names are stamped to the hundredth of a second: two switches within one wait for the next.
    std::string name = timestamped(options.output);
    while (path_exists(name)) {
      ::usleep(1000);
      name = timestamped(options.output);
    }
    if (std::rename(options.output.c_str(), name.c_str()) != 0)
      return failf("cannot rename {} to {}: {}", options.output, name, errno_text(errno));
    dumped.push_back(name);
    diagnostics.notef("[ sonde record: Dump {} ]", name);
    if (options.switch_max_files > 0 && dumped.size() > static_cast<size_t>(options.switch_max_files))
      ::unlink(dumped[dumped.size() - 1 - static_cast<size_t>(options.switch_max_files)].c_str());
    return {};
  };
  auto last_switch = std::chrono::steady_clock::now();
  if (options.switch_output && !to_pipe) {
    const auto spec = *options.switch_output;
    record.switch_on_signal = spec.on_signal;
    record.should_switch = [&, spec] {
      if (spec.bytes) return writer->data_size() >= spec.bytes;
      return spec.period.count() > 0 && std::chrono::steady_clock::now() - last_switch >= spec.period;
    };
    record.on_switch = [&]() -> Result<void> {
      if (auto closed = close_file(); !closed) return closed;
      auto fresh = perfdata::PerfDataWriter::create(options.output);
      if (!fresh) return tl::unexpected(fresh.error());
      *writer = std::move(*fresh);
      if (auto written = writer->write_attrs(file_attrs); !written) return written;
      last_switch = std::chrono::steady_clock::now();
      // The new file stands alone: it starts with the tasks as they are (or ends with them).
      return options.tail_synthesize ? Result<void>{} : write_current_sideband();
    };
  }
  std::vector<std::string> filters;
  for (const auto& event : options.events) filters.push_back(event.filter);
  bool max_size_reached = false;
  if (options.max_size)
    record.should_stop = [&] {
      max_size_reached = max_size_reached || writer->data_size() >= *options.max_size;
      return max_size_reached;
    };
  auto run = capture::run_record(opened, filters, record, on_opened, sink);
  if (!run) {
    Error error = run.error();
    int why = error.sys_errno;
    if (writer->regular_file() && is_out_of_space(why)) {
      // A full disk: what reached it is kept. Its header still says "not finished" (data size
      // 0), so sonde reads the records up to where the disk filled.
      error.message +=
          fmt::format("; the part written is kept in {} (sonde report reads it)", options.output);
      return tl::unexpected(error);
    }
    // Only a file this recording made goes: never a device named by -o (/dev/full).
    if (writer->regular_file()) ::unlink(options.output.c_str());
    return tl::unexpected(error);
  }
  uint64_t off_cpu_lost = 0;
  if (off_cpu) {
    // The short blocks' totals, after every real record, as perf writes them.
    auto totals = off_cpu->finish();
    if (!totals) return tl::unexpected(totals.error());
    off_cpu_lost = off_cpu->lost();
    if (!totals->empty()) {
      if (auto written = write_records(totals->data(), totals->size()); !written)
        return tl::unexpected(written.error());
      if (auto ended = sink.end_of_round(); !ended) return tl::unexpected(ended.error());
    }
  }
  if (options.tail_synthesize && !(options.switch_output && !to_pipe)) {  // close_file writes it there
    if (auto written = write_current_sideband(); !written) return tl::unexpected(written.error());
    if (auto ended = sink.end_of_round(); !ended) return tl::unexpected(ended.error());
  }
  // Build-ids of what the recording mapped, read once now rather than by re-reading the samples.
  features->build_ids = build_id_entries();
  // perf's SAMPLE_TIME: the first and last sample, for --time's percent slices.
  if (auto [first, last] = dsos.sample_times(); last != 0)
    features->sample_time = perfdata::SampleTime{first, last};
  RecordToFileResult result{*run, options.output};
  result.off_cpu_lost = off_cpu_lost;
  result.max_size_reached = max_size_reached;
  if (compressor) {
    perfdata::CompressedFeature compressed_feature;
    compressed_feature.level = static_cast<uint32_t>(options.compression_level);
    compressed_feature.ratio =
        compressor->bytes_out() ? static_cast<uint32_t>(compressor->bytes_in() / compressor->bytes_out()) : 0;
    compressed_feature.mmap_len =
        static_cast<uint32_t>(record.mmap_pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE)));
    features->compressed = compressed_feature;
    result.uncompressed_bytes = compressor->bytes_in();
    result.compressed_bytes = compressor->bytes_out();
  }
  result.data_size = writer->data_size();
  if (options.switch_output && !to_pipe) {
    if (auto closed = close_file(); !closed) return tl::unexpected(closed.error());
    result.output = dumped.back();
    result.dumped = dumped;
    return result;
  }
  if (auto finalized = writer->finalize(*features); !finalized) return tl::unexpected(finalized.error());
  return result;
}

std::string record_summary_line(const RecordToFileResult& result) {
  double megabytes = static_cast<double>(result.data_size) / (1024.0 * 1024.0);
  // perf's closing line, with its compression summary under -z.
  std::string compression;
  if (result.compressed_bytes > 0)
    compression = fmt::format(
        ", compressed (original {:.3f} MB, ratio is {:.3f})",
        static_cast<double>(result.uncompressed_bytes) / (1024.0 * 1024.0),
        static_cast<double>(result.uncompressed_bytes) / static_cast<double>(result.compressed_bytes));
  return fmt::format("[ sonde record: Captured and wrote {:.3f} MB {} ({} samples){} ]", megabytes,
                     result.output == "-" ? "(pipe)" : result.output, result.run.samples, compression);
}

}  // namespace sonde::pipeline
