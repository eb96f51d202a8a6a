// sonde record: perf record's options; pipeline/record_to_file does the recording.
#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <optional>

#include "base/strings.hpp"
#include "capture/signals.hpp"
#include "capture/tasks.hpp"
#include "cli/command.hpp"
#include "cli/event_options.hpp"
#include "events/branch_filter.hpp"
#include "events/parse_events.hpp"
#include "format/perf_regs.hpp"
#include "kernel/perf_event.hpp"
#include "pipeline/record_to_file.hpp"
#include "pipeline/sdt_cache.hpp"
#include "pipeline/stat_pmu_requests.hpp"

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
  // perf record's further options (issue 18).
  bool all_user = false, all_kernel = false, record_period = false, sample_cpu = false, data = false,
       phys_data = false, data_page_size = false, code_page_size = false, weight = false, transaction = false,
       sample_identifier = false, user_callchains = false, kernel_callchains = false, dry_run = false,
       no_bpf_event = false, strict_freq = false, per_thread = false;
  std::string clockid, uid, max_size;
  std::optional<int> delay_ms;
  app.add_flag("--all-user", all_user, "sample every event in user space only");
  app.add_flag("--all-kernel", all_kernel, "sample every event in kernel space only");
  app.add_flag("-P,--period", record_period, "record the sample period (sonde always does)");
  app.add_flag("--sample-cpu", sample_cpu, "record the CPU of each sample");
  app.add_flag("-n,--no-samples", sampling.no_samples, "take no samples: the side-band only");
  app.add_flag("-d,--data", data, "record each sample's data address");
  app.add_flag("--phys-data", phys_data, "record each sample's physical address");
  app.add_flag("--data-page-size", data_page_size, "record the page size of each sample's data address");
  app.add_flag("--code-page-size", code_page_size, "record the page size of each sample's code address");
  app.add_flag("-W,--weight", weight, "record each sample's weight");
  app.add_flag("--transaction", transaction, "record each sample's transaction flags (needs TSX)");
  app.add_flag("--sample-identifier", sample_identifier, "every sample starts with its event's id");
  app.add_flag("--running-time", sampling.running_time, "record each event's enabled and running times");
  app.add_flag("--namespaces", sampling.namespaces, "record the tasks' namespaces (NAMESPACES records)");
  app.add_flag("--user-callchains", user_callchains, "with -g: the user part of call chains only");
  app.add_flag("--kernel-callchains", kernel_callchains, "with -g: the kernel part of call chains only");
  app.add_option("-k,--clockid", clockid,
                 "the samples' clock: monotonic, monotonic_raw, realtime, boottime, tai or a number");
  app.add_flag("--no-buffering", sampling.no_buffering, "wake up for every record");
  app.add_option("-D,--delay", delay_ms,
                 "start sampling N ms after the command starts (-1: on --control enable)");
  app.add_option("--control", record.control, "fifo:CTL[,ACK] or fd:CTL[,ACK]: enable/disable/stop commands");
  app.add_option("--max-size", max_size, "stop once the data reaches this size (B, K, M, G)");
  app.add_flag("--timestamp-filename", record.timestamp_filename,
               "append the start time to the output's name");
  app.add_flag("--dry-run", dry_run, "check the options and exit without recording");
  app.add_flag("--no-bpf-event", no_bpf_event, "record no BPF program events (sonde records none)");
  app.add_flag("--strict-freq", strict_freq, "fail when -F exceeds the kernel's maximum sample rate");
  app.add_flag("--per-thread", per_thread, "one ring buffer per thread instead of per CPU (no inheritance)");
  app.add_option("-u,--uid", uid, "sample the processes of this user (name or number)");
  bool no_buildid = false, no_buildid_cache = false, buildid_all = false, timestamp_boundary = false;
  app.add_flag("-B,--no-buildid", no_buildid, "write no build-ids into the file");
  app.add_flag("-N,--no-buildid-cache", no_buildid_cache, "accepted: sonde record never fills ~/.debug");
  app.add_flag("--buildid-all", buildid_all, "the build-ids of every DSO mapped, not only those sampled");
  app.add_flag("--buildid-mmap", sampling.build_id_mmaps, "MMAP2 records carry build-ids (implies -B)");
  app.add_flag("--timestamp-boundary", timestamp_boundary,
               "accepted: sonde always writes the first and last sample times");
  int realtime = 0;
  app.add_option("-r,--realtime", realtime, "run sonde (not the workload) with SCHED_FIFO at this priority");
  std::optional<std::string> switch_output;
  int switch_max_files = 0;
  value_attached_only(
      app.add_option("--switch-output", switch_output,
                     "a new file on SIGUSR2 (signal, the default), after a size (100M) or a time (30s, 5m)")
          ->expected(0, 1));
  app.add_option("--switch-max-files", switch_max_files, "with --switch-output: keep the newest N files");
  std::string switch_output_event;
  app.add_option("--switch-output-event", switch_output_event,
                 "a new file each time this event occurs on the target (implies --switch-output)");
  app.add_flag("--overwrite", sampling.overwrite,
               "flight recorder: the buffers keep the newest records, written at the end or at a "
               "--switch-output");
  bool group = false;
  app.add_flag("--group", group, "put all the events in one group (as -e '{a,b}' does)");
  app.add_flag("--kcore", record.kcore,
               "copy /proc/kcore: OUTPUT becomes a directory (OUTPUT/data, OUTPUT/kcore_dir) and the "
               "kernel's text changes are recorded");
  app.add_flag("--tail-synthesize", record.tail_synthesize,
               "synthesize the tasks' side-band when each file is finished instead of at the start");
  std::optional<std::string> intr_regs, user_regs;
  value_attached_only(
      app.add_option("-I,--intr-regs", intr_regs,
                     "sample these registers at the interrupt (all by default; '?' lists them)")
          ->expected(0, 1));
  value_attached_only(
      app.add_option("--user-regs", user_regs, "sample these user registers (all by default; '?' lists them)")
          ->expected(0, 1));
  bool branch_any = false;
  std::string branch_filter;
  app.add_flag("-b,--branch-any", branch_any, "sample any taken branches (needs a PMU with a branch stack)");
  app.add_option("-j,--branch-filter", branch_filter,
                 "branch stack filter: any, any_call, any_ret, ind_call, ind_jmp, call, cond, u, k, hv, ...");
  app.add_flag("-s,--stat", sampling.inherit_stat, "per-thread counts at each thread's exit (report -T)");
  app.add_flag("--all-cgroups", sampling.all_cgroups,
               "record each sample's cgroup and the cgroups (CGROUP records)");
  std::string synth;
  app.add_option("--synth", synth,
                 "the existing tasks' records synthesized: no, all (the default), task, mmap");
  bool snapshot = false, aux_sample = false;
  app.add_flag("-S,--snapshot", snapshot, "AUX area tracing snapshot mode (needs an AUX area event)");
  app.add_flag("--aux-sample", aux_sample, "sample AUX area data (needs an AUX area event)");
  // perf's tuning of its own writer threads: sonde drains every ring buffer whole on one thread and
  // writes through a buffered file, so these are checked and accepted, and change nothing.
  std::string mmap_flush, affinity;
  std::optional<std::string> aio, threads, debuginfod;
  int synthesize_threads = 1, proc_map_timeout = 500;
  std::string clang_path, clang_opt, vmlinux;
  app.add_option("--mmap-flush", mmap_flush,
                 "accepted: sonde drains each ring buffer whole (perf: bytes per flush)");
  value_attached_only(
      app.add_option("--aio", aio,
                     "accepted: sonde's writes are buffered (perf: asynchronous writes, 1-4 blocks)")
          ->expected(0, 1));
  app.add_option("--affinity", affinity, "accepted: node or cpu (perf: where its reader thread runs)");
  value_attached_only(app.add_option("--threads", threads,
                                     "accepted: sonde writes one file from one thread (perf: a directory)")
                          ->expected(0, 1));
  app.add_option("--num-thread-synthesize", synthesize_threads, "accepted: sonde reads /proc on one thread");
  app.add_option("--proc-map-timeout", proc_map_timeout, "accepted: sonde reads each /proc maps file whole");
  app.add_option("--clang-path", clang_path, "accepted: only for BPF C events, which sonde does not build");
  app.add_option("--clang-opt", clang_opt, "accepted: only for BPF C events, which sonde does not build");
  value_attached_only(app.add_option("--debuginfod", debuginfod,
                                     "accepted: sonde record fills no build-id cache to fetch for")
                          ->expected(0, 1));
  app.add_option("--vmlinux", vmlinux,
                 "the kernel image (checked to be readable; kallsyms names the kernel)");
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
  for (auto [spec, mask] :
       {std::pair{&intr_regs, &sampling.intr_regs}, std::pair{&user_regs, &sampling.user_regs}}) {
    if (!*spec) continue;
    if (**spec == "?") {
      fmt::print(stderr, "{}\n", format::available_registers_text());
      return 129;  // as perf, which then prints its usage
    }
    auto parsed = format::parse_register_list(**spec);
    if (!parsed) return report_usage_error("record", parsed.error().message);
    *mask = *parsed;
  }
  auto command = command_after_options(app, "record");
  if (!command) return report_error(command.error());
  sampling.command = *command;
  target.system_wide = all_cpus || !target.cpu_list.empty();
  if (sampling.command.empty() && !target.system_wide && target.pids.empty() && target.tids.empty() &&
      uid.empty())
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
  if (all_user && all_kernel)
    return report_usage_error("record", "--all-user and --all-kernel exclude each other");
  if (user_callchains && kernel_callchains)
    return report_usage_error("record", "--user-callchains and --kernel-callchains exclude each other");
  if (delay_ms && *delay_ms < -1)
    return report_usage_error("record", "-D needs milliseconds, or -1 to wait for --control");
  if (delay_ms && off_cpu)
    return report_usage_error("record", "-D cannot hold back --off-cpu's event; drop one");
  if (transaction && !pipeline::cpu_pmu_has_event("tx-start"))
    return report_error("record",
                        Error{"--transaction: the CPU PMU has no TSX events (cpu/tx-start/), so samples "
                              "carry no transaction flags on this machine"});
  if (!max_size.empty()) {
    auto bytes = parse_size(max_size);
    if (!bytes || *bytes == 0)
      return report_usage_error("record", "--max-size needs a size like 100M (B, K, M, G suffixes)");
    record.max_size = *bytes;
  }
  const std::optional<uint64_t> max_size_bytes = record.max_size;
  const bool record_timestamped = record.timestamp_filename;
  if (!switch_output_event.empty()) {
    std::vector<events::EventSpec> parsed;
    if (auto valid = events::parse_events(switch_output_event, parsed); !valid)
      return report_error("record", valid.error().with_context("--switch-output-event"));
    if (parsed.size() != 1) return report_usage_error("record", "--switch-output-event takes one event");
    sampling.switch_event = parsed.front().attr;
    if (!switch_output) switch_output = "signal";
  }
  if (switch_output) {
    if (record.output == "-") return report_usage_error("record", "--switch-output writes files; drop -o -");
    auto spec = pipeline::parse_switch_output(*switch_output);
    if (!spec) return report_error("record", spec.error());
    record.switch_output = *spec;
  }
  if (sampling.overwrite && record.switch_output && record.switch_output->bytes)
    return report_usage_error(
        "record",
        "--overwrite writes nothing until a switch, so --switch-output cannot count its "
        "size; give signal or a time (30s)");
  if (sampling.overwrite && off_cpu)
    return report_usage_error("record",
                              "--off-cpu's blocks cannot go through --overwrite's buffers; drop one");
  if (switch_max_files < 0 || (switch_max_files > 0 && !switch_output))
    return report_usage_error("record",
                              "--switch-max-files takes a positive count and goes with --switch-output");
  record.switch_max_files = switch_max_files;
  if (buildid_all) record.build_ids = pipeline::RecordToFileOptions::BuildIds::all;
  if (no_buildid || sampling.build_id_mmaps) record.build_ids = pipeline::RecordToFileOptions::BuildIds::none;
  if (!clockid.empty()) {
    auto id = kernel::parse_clockid(clockid);
    if (!id) return report_usage_error("record", id.error().message);
    sampling.clockid = *id;
  }
  if (!uid.empty()) {
    if (!target.pids.empty() || !target.tids.empty() || target.system_wide)
      return report_usage_error("record", "-u picks the processes; drop -p, -t and -a");
    auto pids = capture::processes_of_user(uid);
    if (!pids) return report_error("record", pids.error());
    target.pids = *pids;
  }
  auto allowed_frequency = pipeline::check_frequency(frequency, strict_freq);
  if (!allowed_frequency) return report_error("record", allowed_frequency.error());
  if (*allowed_frequency != frequency) {
    if (!quiet)
      fmt::print(stderr,
                 "warning: Maximum frequency rate ({} Hz) exceeded, throttling from {} Hz to {} Hz.\n"
                 "         The limit can be raised via /proc/sys/kernel/perf_event_max_sample_rate.\n"
                 "         The kernel will lower it when perf's interrupts take too long.\n",
                 *allowed_frequency, frequency, *allowed_frequency);
    frequency = *allowed_frequency;
  }
  if (all_user) sampling.privilege = capture::RecordOptions::Privilege::user;
  if (all_kernel) sampling.privilege = capture::RecordOptions::Privilege::kernel;
  if (user_callchains) sampling.callchains = capture::RecordOptions::Callchains::user;
  if (kernel_callchains) sampling.callchains = capture::RecordOptions::Callchains::kernel;
  if (data) sampling.extra_sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC, sampling.data_mmaps = true;
  if (phys_data) sampling.extra_sample_type |= PERF_SAMPLE_PHYS_ADDR;
  if (data_page_size) sampling.extra_sample_type |= PERF_SAMPLE_DATA_PAGE_SIZE;
  if (code_page_size) sampling.extra_sample_type |= PERF_SAMPLE_CODE_PAGE_SIZE;
  if (weight) sampling.extra_sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
  if (transaction) sampling.extra_sample_type |= PERF_SAMPLE_TRANSACTION;
  if (sample_identifier) sampling.extra_sample_type |= PERF_SAMPLE_IDENTIFIER;
  if (!synth.empty()) {
    auto parsed = capture::parse_sideband_synth(synth);
    if (!parsed) return report_usage_error("record", parsed.error().message);
    record.synth = *parsed;
  }
  if (branch_any) sampling.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
  if (!branch_filter.empty()) {
    auto parsed = events::parse_branch_filter(branch_filter);
    if (!parsed) return report_usage_error("record", parsed.error().message);
    sampling.branch_sample_type = *parsed;
  }
  if (!mmap_flush.empty() && !parse_size(mmap_flush))
    return report_usage_error("record", "--mmap-flush needs a size like 16K (B, K, M, G suffixes)");
  if (aio && !aio->empty() && (aio->size() != 1 || (*aio)[0] < '1' || (*aio)[0] > '4'))
    return report_usage_error("record", "--aio takes 1 to 4 control blocks");
  if (!affinity.empty() && affinity != "node" && affinity != "cpu")
    return report_usage_error("record", "--affinity takes node or cpu");
  if (synthesize_threads < 1) return report_usage_error("record", "--num-thread-synthesize needs at least 1");
  if (!vmlinux.empty() && ::access(vmlinux.c_str(), R_OK) != 0)
    return report_error("record",
                        Error{fmt::format("cannot read the vmlinux {}: {}", vmlinux, errno_text(errno))});
  // perf looks for an AUX area event (intel_pt, cs_etm, arm_spe) among those given.
  if (snapshot) return report_error("record", Error{"No AUX area tracing to snapshot"});
  if (aux_sample) return report_error("record", Error{"No AUX area event to sample"});
  if (delay_ms && *delay_ms != 0) sampling.delay = std::chrono::milliseconds(*delay_ms);
  record.events = std::move(event_options.events);
  if (group) events::group_all(record.events);
  if (frequency) sampling.frequency = frequency;
  if (period) sampling.period = period;
  if (callchain) sampling.call_graph = capture::CallGraph::frame_pointer;
  if (!call_graph.empty())
    if (auto set = pipeline::set_call_graph(call_graph, sampling); !set)
      return report_error("record", set.error());
  if (mmap_pages & (mmap_pages - 1))
    return report_usage_error("record", "-m needs a power of two number of pages");
  sampling.sample_cpu = target.system_wide || sample_cpu;
  sampling.inherit = !no_inherit && !per_thread;
  target.per_thread = per_thread;
  if (mmap_pages) sampling.mmap_pages = mmap_pages;
  if (compress && !record.compression_level) record.compression_level = 1;
  record.cmdline = {"sonde"};
  for (int i = 0; i < argc; ++i) record.cmdline.push_back(argv[i]);

  if (dry_run) return 0;  // perf's --dry-run: the options parsed, nothing recorded
  if (realtime > 0) {
    // The workload keeps its normal policy (reset on fork); only the draining is real-time.
    sched_param param{};
    param.sched_priority = realtime;
    if (::sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &param) != 0)
      return report_error(
          "record", Error{fmt::format("cannot set real-time priority {}: {}; give 1-{} as root", realtime,
                                      errno_text(errno), sched_get_priority_max(SCHED_FIFO))});
  }

  // -q: perf's quiet drops its informational lines (-D's "Events enabled"), not its warnings.
  Diagnostics diagnostics([quiet](const Diagnostics::Message& message) {
    if (quiet && message.kind == Diagnostics::Kind::note) return;
    fmt::print(stderr, "{}\n", message.text);
  });
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
  if (record_timestamped && result->output != "-")
    fmt::print(stderr, "[ sonde record: Dump {} ]\n", result->output);
  if (result->max_size_reached)
    fmt::print(stderr, "[ sonde record: size limit reached ({} KB), stopping session ]\n",
               *max_size_bytes / 1024);
  if (!quiet) fmt::print(stderr, "{}\n", pipeline::record_summary_line(*result));
  return result->run.exit_status;
}

}  // namespace sonde::cli
