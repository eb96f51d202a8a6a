#include "pipeline/trace_run.hpp"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>

#include "analysis/trace/recorded_syscalls.hpp"
#include "analysis/trace/split_call_lines.hpp"
#include "analysis/trace/syscall_catalogue.hpp"
#include "analysis/trace/syscall_stats.hpp"
#include "base/file.hpp"
#include "base/output_stream.hpp"
#include "base/unique_fd.hpp"
#include "capture/signals.hpp"
#include "capture/tasks.hpp"
#include "capture/workload.hpp"
#include "events/syscall_selection.hpp"
#include "events/tracepoints.hpp"
#include "kernel/cpus.hpp"
#include "kernel/syscall_formats.hpp"
#include "kernel/syscall_tracer.hpp"
#include "kernel/tracefs.hpp"
#include "output/trace/summary_tables.hpp"
#include "output/trace/syscall_line.hpp"
#include "output/trace/trace_event_text.hpp"
#include "pipeline/trace_output.hpp"
#include "pipeline/trace_symbols.hpp"
#include "symbols/kallsyms_cache.hpp"

namespace sonde::pipeline {

namespace {

using Clock = std::chrono::steady_clock;

// How often buffered events are printed when the kernel has not woken us, and how often an
// attached target is checked for having exited.
constexpr int kDrainIntervalMs = 100;

// The summary from the tracer's maps: per thread, per syscall.
Result<analysis::SyscallSummary> read_summary(const kernel::SyscallTracer& tracer,
                                              const analysis::SyscallCatalogue& catalogue) {
  auto rows = tracer.read_stats();
  if (!rows) return tl::unexpected(rows.error());
  auto errnos = tracer.read_errnos();
  if (!errnos) return tl::unexpected(errnos.error());
  auto comms = tracer.read_comms();
  if (!comms) return tl::unexpected(comms.error());
  std::map<pid_t, analysis::ThreadSyscalls> threads;
  std::map<std::pair<pid_t, int>, analysis::SyscallRow> by_call;
  for (const auto& row : *rows) {
    auto& entry = by_call[{row.tid, row.nr}];
    entry.number = row.nr;
    entry.name = catalogue.name(row.nr);
    if (entry.name.empty()) entry.name = "syscall_" + std::to_string(row.nr);
    auto& stats = entry.stats;
    stats.calls = row.value.calls;
    stats.errors = row.value.errors;
    stats.total_ns = row.value.total_ns;
    stats.min_ns = row.value.calls ? row.value.min_ns : 0;
    stats.max_ns = row.value.max_ns;
    // The tracer sums (ns/16)² in 128 bits.
    long double squares = static_cast<long double>(row.value.squares_high) * 18446744073709551616.0L +
                          static_cast<long double>(row.value.squares_low);
    stats.sum_squares_ns2 = squares * 256.0L;
  }
  for (const auto& row : *errnos) {
    auto found = by_call.find({row.tid, row.nr});
    if (found != by_call.end()) found->second.stats.errnos[row.err] += row.count;
  }
  analysis::SyscallSummary summary;
  for (auto& [key, row] : by_call) {
    auto& thread = threads[key.first];
    thread.tid = key.first;
    thread.events += 2 * row.stats.calls;
    summary.total_events += 2 * row.stats.calls;
    thread.syscalls.push_back(std::move(row));
  }
  auto faults = tracer.read_faults();
  if (!faults) return tl::unexpected(faults.error());
  for (const auto& counts : *faults) {
    auto& thread = threads[counts.tid];
    thread.tid = counts.tid;
    thread.majfaults = counts.major;
    thread.minfaults = counts.minor;
    // perf counts each fault as an event of the thread
    thread.events += counts.major + counts.minor;
    summary.total_events += counts.major + counts.minor;
  }
  for (const auto& [tid, comm] : *comms)
    if (auto found = threads.find(tid); found != threads.end()) found->second.comm = comm;
  for (auto& [tid, thread] : threads) summary.threads.push_back(std::move(thread));
  return summary;
}

// Blocked signals made pollable, so one epoll waits for events and signals together.
Result<UniqueFd> signal_fd() {
  sigset_t set;
  sigemptyset(&set);
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&set, signal);
  int fd = ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd < 0) return failf("signalfd: {}", errno_text(errno));
  return UniqueFd(fd);
}

// Which arguments of each syscall the tracer reads as strings: output/trace's rule over every
// syscall's tracefs format. Reading ~360 formats costs ~11 ms, a fifth of a short trace, and
// they change only with the kernel, so the masks are kept in sonde's cache, keyed by its build.
std::vector<uint8_t> string_argument_masks(analysis::SyscallCatalogue& catalogue) {
  utsname names{};
  ::uname(&names);
  std::string key = fmt::format("sonde trace string masks 1 {} {}\n", names.release, names.version);
  std::string path = symbols::sonde_cache_dir() + "/trace-string-masks";
  if (auto cached = read_file(path);
      cached && cached->size() == key.size() + SONDE_TRACE_MAX_SYSCALLS && cached->starts_with(key))
    return std::vector<uint8_t>(cached->begin() + static_cast<std::ptrdiff_t>(key.size()), cached->end());
  std::vector<uint8_t> masks(SONDE_TRACE_MAX_SYSCALLS, 0);
  for (int nr = 0; nr < SONDE_TRACE_MAX_SYSCALLS; ++nr) {
    std::string_view name = catalogue.name(nr);
    if (name.empty()) continue;
    auto fields = catalogue.fields(nr);
    if (!fields.empty())
      masks[static_cast<size_t>(nr)] = static_cast<uint8_t>(output::string_argument_mask(name, fields));
  }
  std::string content = key;
  content.append(masks.begin(), masks.end());
  std::error_code ignored;
  std::filesystem::create_directories(symbols::sonde_cache_dir(), ignored);
  (void)replace_file(path, content);  // a cache: failing to write it costs only time
  return masks;
}

struct TracepointToTrace {
  kernel::TracedTracepoint traced;
  std::string format;
};

// The tracepoints -e names beside syscalls ("sched:sched_switch", "sched:*"), with their formats.
Result<std::vector<TracepointToTrace>> traced_tracepoints(const std::vector<std::string>& names) {
  std::vector<TracepointToTrace> result;
  for (const auto& name : names) {
    size_t colon = name.find(':');
    auto found = events::find_tracepoints(std::string_view(name).substr(0, colon),
                                          std::string_view(name).substr(colon + 1));
    if (!found) return tl::unexpected(found.error());
    if (found->empty()) return failf("no tracepoint matches '{}'; see 'sonde list tracepoint'", name);
    for (const auto& tracepoint : *found) {
      auto id = kernel::tracepoint_id(tracepoint.system, tracepoint.name);
      if (!id) return tl::unexpected(id.error());
      auto format = kernel::tracepoint_format(tracepoint.system, tracepoint.name);
      if (!format) return tl::unexpected(format.error());
      TracepointToTrace entry;
      entry.traced.system = tracepoint.system;
      entry.traced.name = tracepoint.name;
      entry.traced.id = static_cast<uint32_t>(*id);
      entry.traced.fixed_size = kernel::tracepoint_fixed_size(*format);
      entry.format = std::move(*format);
      result.push_back(std::move(entry));
    }
  }
  return result;
}

}  // namespace

Result<int> run_trace(const TraceRunOptions& options, Diagnostics& diagnostics) {
  events::SyscallSelection selection;
  if (options.event_lists.empty()) {
    selection = events::all_syscalls();
  } else {
    auto parsed = events::parse_syscall_selection(options.event_lists);
    if (!parsed) return tl::unexpected(parsed.error());
    selection = std::move(*parsed);
    // Naming only other events traces no syscalls, as perf does, unless --syscalls.
    if (!selection.any_syscall_named) selection.syscalls.reset();
  }
  if (!options.trace_syscalls) selection.syscalls.reset();
  if (!options.input_path.empty()) {
    if (!selection.others.empty())
      return failf("-i replays the system calls of a recording; '{}' is not one of them",
                   selection.others.front());
    if (selection.syscalls.none()) return fail("nothing to replay: no system call selected");
    return replay_trace(options, selection, diagnostics);  // trace_replay.cpp
  }
  auto tracepoints = traced_tracepoints(selection.others);
  if (!tracepoints) return tl::unexpected(tracepoints.error());
  if (selection.syscalls.none() && tracepoints->empty() && options.page_faults.empty())
    return fail("nothing to trace: no system call, tracepoint or page fault selected");

  bool summary = options.summary_only || options.with_summary || options.strace_summary;
  bool events_wanted = !options.summary_only && !options.strace_summary;
  analysis::SyscallCatalogue catalogue;

  kernel::SyscallTracerOptions tracer_options;
  tracer_options.system_wide = options.system_wide || !options.cpus.empty() || options.uid.has_value();
  tracer_options.follow_children = options.inherit;
  tracer_options.copy_events = events_wanted;
  tracer_options.keep_stats = summary;
  tracer_options.keep_errnos = options.errno_summary;
  tracer_options.failures_only = options.failures_only;
  tracer_options.count_child_fork_returns = !options.strace_summary;
  tracer_options.min_duration_ns = static_cast<uint64_t>(options.min_duration_ms * 1e6);
  tracer_options.selected = selection.syscalls;
  tracer_options.cpus = options.cpus;
  tracer_options.uid = options.uid;
  tracer_options.excluded_pids = options.filter_pids;
  tracer_options.major_faults = options.page_faults == "maj" || options.page_faults == "all";
  tracer_options.minor_faults = options.page_faults == "min" || options.page_faults == "all";
  tracer_options.online_cpus = options.cpus.empty() ? kernel::online_cpus() : options.cpus;
  tracer_options.user_stacks = options.user_callchains && !options.dwarf_callchains && events_wanted;
  tracer_options.dwarf_stacks = options.dwarf_callchains && events_wanted;
  tracer_options.kernel_stacks = options.kernel_callchains && events_wanted;
  for (const auto& tracepoint : *tracepoints) tracer_options.tracepoints.push_back(tracepoint.traced);
  if (tracer_options.system_wide) tracer_options.excluded_pids.push_back(::getpid());
  if (options.ring_pages > 0) tracer_options.ring_bytes = options.ring_pages * 4096;
  if (events_wanted) tracer_options.string_masks = string_argument_masks(catalogue);

  auto output = open_output(options.output_path);
  if (!output) return tl::unexpected(output.error());
  OutputStream& out = **output;

  // Block before forking so that a signal between fork and the loop is not lost.
  capture::BlockedSignals signals;
  std::optional<capture::Workload> workload;
  if (!options.command.empty()) {
    auto prepared = capture::Workload::prepare(options.command);
    if (!prepared) return tl::unexpected(prepared.error());
    workload.emplace(std::move(*prepared));
  }

  auto tracer = kernel::SyscallTracer::open(tracer_options);
  if (!tracer) return tl::unexpected(tracer.error());

  std::vector<pid_t> targets;  // -p/-t tasks, watched for exiting
  bool one_thread = false;
  if (!tracer_options.system_wide) {
    if (workload) {
      if (auto followed = tracer->follow(workload->pid(), options.delay_ms == 0); !followed)
        return tl::unexpected(followed.error());
    }
    for (pid_t pid : options.pids) {
      auto threads = capture::process_threads(pid);
      if (!threads) return tl::unexpected(threads.error());
      for (pid_t tid : *threads) {
        if (auto followed = tracer->follow(tid, false); !followed) return tl::unexpected(followed.error());
        targets.push_back(tid);
      }
    }
    for (pid_t tid : options.tids) {
      if (!capture::task_alive(tid))
        return failf("no thread with id {}; check the tid (ls /proc/*/task)", tid);
      if (auto followed = tracer->follow(tid, false); !followed) return tl::unexpected(followed.error());
      targets.push_back(tid);
    }
    // perf names the thread on each line unless it traces exactly one existing thread.
    one_thread = !workload && targets.size() == 1 && options.tids.size() + options.pids.size() == 1;
  }

  output::TraceTextOptions text_options;
  text_options.absolute_time = options.absolute_time;
  text_options.show_thread = !one_thread || options.show_comm.value_or(false);
  text_options.show_comm = options.show_comm.value_or(true);
  text_options.syscalls = selection.syscalls.any();
  text_options.max_stack = options.max_stack;
  output::TraceEventText text(catalogue, text_options);
  for (const auto& tracepoint : *tracepoints)
    if (auto learnt = text.tracepoints().add_format(tracepoint.traced.system, tracepoint.format); !learnt)
      return tl::unexpected(learnt.error());
  std::string lines;
  uint64_t printed = 0;
  bool max_reached = false;
  kernel::SyscallTracer::EventHandler on_event;
  // Each record becomes a line until --max-events is reached.
  auto print = [&](auto&&... record) {
    if (max_reached) return;
    text.append(lines, record...);
    if (options.max_events && ++printed >= *options.max_events) max_reached = true;
  };
  // A call's times count from the first traced call, printed or not.
  auto print_call = [&](const auto& event, size_t size) {
    if (uint64_t first = tracer->first_event_ns(); first != 0 && !max_reached) text.start_clock(first);
    print(event, size);
  };
  analysis::SplitCallLines split_lines;
  on_event.on_syscall = [&](const kernel::SyscallTraceEvent& event, size_t size) {
    auto line = split_lines.admit(event);
    if (!line.print) return;
    if (line.flags == event.flags) return print_call(event, size);
    kernel::SyscallTraceEvent corrected;  // rare: a split line's two records raced
    std::memcpy(&corrected, &event, std::min(size, sizeof corrected));
    corrected.flags = line.flags;
    print_call(corrected, size);
  };
  on_event.on_syscall_dwarf = [&](const kernel::SyscallTraceEventDwarf& event, size_t size) {
    auto line = split_lines.admit(event.call);
    if (!line.print) return;
    if (line.flags == event.call.flags) return print_call(event, size);
    auto corrected = std::make_unique<kernel::SyscallTraceEventDwarf>();
    std::memcpy(corrected.get(), &event, std::min(size, sizeof *corrected));
    corrected->call.flags = line.flags;
    print_call(*corrected, size);
  };
  on_event.on_fault = [&](const kernel::FaultTraceEvent& event) { print(event); };
  on_event.on_tracepoint = [&](const kernel::TracepointTraceEvent& event) { print(event); };
  auto flush_lines = [&]() -> Result<void> {
    if (lines.empty()) return {};
    auto written = out.write(lines.data(), lines.size());
    lines.clear();
    if (!written) return written;
    return out.flush();
  };

  // Call graphs need the tasks' maps, followed from now on as perf follows them.
  std::unique_ptr<TraceSymbols> symbols;
  if (tracer_options.user_stacks || tracer_options.dwarf_stacks || tracer_options.kernel_stacks ||
      (events_wanted && (tracer_options.major_faults || tracer_options.minor_faults))) {
    capture::SamplingTarget target;
    if (tracer_options.system_wide) {
      target.kind = capture::SamplingTarget::Kind::system;
    } else if (workload) {
      target.kind = capture::SamplingTarget::Kind::workload;
      target.tids = {workload->pid()};
    } else {
      target.kind = capture::SamplingTarget::Kind::threads;
      target.tids = targets;
    }
    target.cpus = tracer_options.online_cpus;
    auto opened = TraceSymbols::open(target, workload.has_value() && options.delay_ms == 0,
                                     tracer_options.major_faults || tracer_options.minor_faults);
    if (!opened) return tl::unexpected(opened.error());
    symbols = std::move(*opened);
    if (auto enabled = symbols->enable(); !enabled) return tl::unexpected(enabled.error());
    text.set_place_finder([&symbols](pid_t pid, pid_t tid, uint64_t address, bool kernel) {
      symbols->update();
      AddressPlace place = symbols->place(pid, tid, address, kernel);
      output::TraceEventText::Place found;
      if (place.dso != nullptr) found.dso = place.dso->long_name;
      if (place.symbol != nullptr) found.symbol = place.symbol->name;
      found.dso_address = place.dso_address;
      found.symbol_offset = place.symbol_offset;
      return found;
    });
    text.set_dwarf_unwinder([&symbols](const kernel::SyscallTraceEventDwarf& event) {
      symbols->update();
      size_t valid = std::min<size_t>(event.stack_size, SONDE_TRACE_DWARF_STACK);
      auto frames = symbols->unwind(
          static_cast<pid_t>(event.call.pid), static_cast<pid_t>(event.call.tid),
          std::span<const uint64_t>(reinterpret_cast<const uint64_t*>(event.regs), SONDE_TRACE_DWARF_REGS),
          std::span<const uint8_t>(event.stack, valid));
      std::vector<output::TraceEventText::Place> places;
      for (const auto& frame : frames) {
        output::TraceEventText::Place found;
        if (frame.place.dso != nullptr) found.dso = frame.place.dso->long_name;
        found.symbol = !frame.function.empty()         ? frame.function
                       : frame.place.symbol != nullptr ? frame.place.symbol->name
                                                       : std::string();
        found.dso_address = frame.place.dso_address;
        found.inlined = frame.inlined;
        places.push_back(found);
      }
      return places;
    });
  }
  if (auto started = tracer->start(on_event, options.delay_ms > 0); !started)
    return tl::unexpected(started.error());
  if (workload) {
    if (auto started = workload->start(); !started) return tl::unexpected(started.error());
  }

  auto signals_fd = signal_fd();
  if (!signals_fd) return tl::unexpected(signals_fd.error());
  UniqueFd epoll(::epoll_create1(EPOLL_CLOEXEC));
  if (epoll.get() < 0) return failf("epoll_create1: {}", errno_text(errno));
  epoll_event watch{};
  watch.events = EPOLLIN;
  watch.data.fd = signals_fd->get();
  ::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, signals_fd->get(), &watch);

  Clock::time_point started_at = Clock::now();
  bool tracing = options.delay_ms == 0;
  auto start_delayed = [&]() -> Result<void> {
    if (tracing) return {};
    tracing = true;
    return tracer->start_tracing();
  };
  if (tracer->ring_epoll_fd() >= 0) {
    watch.data.fd = tracer->ring_epoll_fd();
    ::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, tracer->ring_epoll_fd(), &watch);
  }

  bool watch_targets = !workload && !targets.empty();
  int stop_signal = 0;
  while (true) {
    if (workload && workload->reap()) break;
    if (watch_targets && !capture::any_alive(targets)) break;
    if (max_reached) break;
    int timeout = kDrainIntervalMs;
    if (!tracing) {
      auto left = options.delay_ms -
                  std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_at).count();
      if (left <= 0) {
        if (auto attached = start_delayed(); !attached) return tl::unexpected(attached.error());
      } else {
        timeout = static_cast<int>(std::min<long>(left, kDrainIntervalMs));
      }
    }
    epoll_event ready[2];
    int count = ::epoll_wait(epoll.get(), ready, 2, timeout);
    if (count < 0 && errno != EINTR) return failf("epoll_wait: {}", errno_text(errno));
    // Read what the ring holds whether or not it woke us: small traces never fill the wakeup mark.
    if (auto drained = tracer->drain(); !drained) return tl::unexpected(drained.error());
    if (auto flushed = flush_lines(); !flushed) return tl::unexpected(flushed.error());
    signalfd_siginfo info;
    while (::read(signals_fd->get(), &info, sizeof info) == sizeof info) {
      int number = static_cast<int>(info.ssi_signo);
      if (capture::is_stop_request(number)) {
        stop_signal = number;
        if (workload) workload->stop(info.ssi_code == SI_KERNEL);
      }
    }
    if (stop_signal) break;
  }
  tracer->stop();
  if (auto drained = tracer->drain(); !drained) return tl::unexpected(drained.error());
  if (auto flushed = flush_lines(); !flushed) return tl::unexpected(flushed.error());
  if (workload && !workload->ended()) {
    // --max-events reached: end the command as perf does.
    ::kill(workload->pid(), SIGTERM);
    workload->wait();
  }

  std::optional<analysis::SyscallSummary> collected;
  if (summary) {
    auto read = read_summary(*tracer, catalogue);
    if (!read) return tl::unexpected(read.error());
    collected = std::move(*read);
    if (uint64_t lost = tracer->lost_stats(); lost > 0)
      diagnostics.warningf("{} calls could not be counted: the tracer's summary table was full", lost);
  }
  std::string tail = summary_text(options, collected ? &*collected : nullptr, tracer->lost_events());
  if (uint64_t failures = tracer->follow_failures(); failures > 0)
    diagnostics.warningf("{} new tasks could not be followed (out of memory); their calls are missing",
                         failures);
  if (auto written = out.write(tail.data(), tail.size()); !written) return tl::unexpected(written.error());
  if (auto closed = out.close(); !closed) return tl::unexpected(closed.error());
  return 0;
}

}  // namespace sonde::pipeline
