#include "pipeline/lock_run.hpp"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>

#include "analysis/lock/lock_wait_totals.hpp"
#include "base/output_stream.hpp"
#include "capture/signals.hpp"
#include "capture/tasks.hpp"
#include "capture/workload.hpp"
#include "kernel/lock_contention_tracer.hpp"
#include "kernel/tracefs.hpp"

namespace sonde::pipeline {

Result<std::vector<std::string>> lock_record_arguments() {
  std::vector<std::string> args = {"record", "-R", "-m", "1024", "-c", "1", "--synth", "task"};
  bool lockdep = true;
  for (const char* name : {"lock_acquire", "lock_acquired", "lock_contended", "lock_release"})
    if (!kernel::tracepoint_id("lock", name)) lockdep = false;
  if (lockdep) {
    for (const char* name : {"lock_acquire", "lock_acquired", "lock_contended", "lock_release"}) {
      args.emplace_back("-e");
      args.emplace_back(std::string("lock:") + name);
    }
    return args;
  }
  for (const char* name : {"contention_begin", "contention_end"})
    if (!kernel::tracepoint_id("lock", name))
      return failf("this kernel has neither lockdep's lock events nor lock:{}; nothing to record", name);
  for (const char* word :
       {"-e", "lock:contention_begin", "-e", "lock:contention_end", "--call-graph", "fp,8"})
    args.emplace_back(word);
  return args;
}

namespace {

Result<void> print_lock_view(const LockRunOptions& options, Result<analysis::LockContention> contention) {
  if (!contention) return tl::unexpected(contention.error());
  if (options.combine)
    contention->stats = analysis::combine_lock_stats(std::move(contention->stats), options.analysis.key);
  std::string text;
  switch (options.view) {
    case LockView::contention:
      output::append_lock_contention(*contention, options.text, text);
      break;
    case LockView::report:
      output::append_lock_report(*contention, options.text, text);
      break;
    case LockView::info_threads:
      output::append_lock_threads(*contention, text);
      break;
    case LockView::info_map:
      output::append_lock_map(*contention, text);
      break;
  }
  OutputStream out(STDOUT_FILENO, false, "stdout");
  if (auto written = out.write(text.data(), text.size()); !written) return written;
  return out.flush();
}

}  // namespace

Result<void> run_lock(const LockRunOptions& options, Diagnostics& diagnostics) {
  return print_lock_view(options, analysis::lock_contention(options.analysis, diagnostics));
}

Result<int> run_lock_bpf(const LockRunOptions& options, const LockBpfOptions& bpf, Diagnostics& diagnostics) {
  // Blocked before the fork, so a Ctrl-C between it and the wait is not lost.
  capture::BlockedSignals signals;
  std::optional<capture::Workload> workload;
  if (!bpf.command.empty()) {
    auto prepared = capture::Workload::prepare(bpf.command);
    if (!prepared) return tl::unexpected(prepared.error());
    workload.emplace(std::move(*prepared));
  }
  kernel::LockTracerOptions tracer_options;
  tracer_options.system_wide = bpf.system_wide || (!workload && bpf.pids.empty() && bpf.tids.empty());
  tracer_options.by_task = options.analysis.aggregation == analysis::LockAggregation::task;
  tracer_options.cpus = bpf.cpus;
  tracer_options.map_entries = bpf.map_entries;
  tracer_options.stack_skip = options.analysis.stack_skip;
  auto tracer = kernel::LockContentionTracer::open(tracer_options);
  if (!tracer) return tl::unexpected(tracer.error());
  std::vector<pid_t> watched;  // the -p/--tid tasks: when all are gone, so is the measurement
  if (!tracer_options.system_wide) {
    if (workload)
      if (auto followed = tracer->follow(workload->pid(), true); !followed)
        return tl::unexpected(followed.error());
    for (pid_t pid : bpf.pids) {
      auto threads = capture::process_threads(pid);
      if (!threads) return tl::unexpected(threads.error());
      for (pid_t tid : *threads)
        if (auto followed = tracer->follow(tid, false); !followed) return tl::unexpected(followed.error());
      watched.push_back(pid);
    }
    for (pid_t tid : bpf.tids) {
      if (auto followed = tracer->follow(tid, false); !followed) return tl::unexpected(followed.error());
      watched.push_back(tid);
    }
  }
  if (auto started = tracer->start(); !started) return tl::unexpected(started.error());
  if (workload)
    if (auto started = workload->start(); !started) return tl::unexpected(started.error());
  while (true) {
    if (workload && workload->reap()) break;
    if (!workload && !watched.empty() && !capture::any_alive(watched)) break;
    capture::ReceivedSignal signal =
        signals.wait(workload || watched.empty() ? std::optional<std::chrono::nanoseconds>()
                                                 : std::chrono::milliseconds(100));
    if (capture::is_stop_request(signal.number)) {
      if (workload) workload->stop(signal.from_terminal);
      break;
    }
  }
  tracer->stop();
  auto totals = tracer->totals();
  if (!totals) return tl::unexpected(totals.error());
  std::vector<analysis::LockWaitTotalRow> rows;
  rows.reserve(totals->size());
  for (const kernel::LockWaitTotal& total : *totals) {
    analysis::LockWaitTotalRow row;
    row.id = total.id;
    row.total_ns = total.total.total_ns;
    row.min_ns = total.total.min_ns;
    row.max_ns = total.total.max_ns;
    row.count = total.total.count;
    row.flags = total.total.flags;
    if (tracer_options.by_task)
      row.comm.assign(total.total.comm, strnlen(total.total.comm, sizeof total.total.comm));
    else
      row.stack = tracer->stack(total.id);
    rows.push_back(std::move(row));
  }
  uint64_t lost = tracer->lost();
  if (lost)
    diagnostics.warningf(
        "{} lock waits were not counted (waits on the tracer's own map locks, or no room in its maps: -M "
        "raises it)",
        lost);
  auto printed = print_lock_view(
      options, analysis::lock_contention_from_totals(std::move(rows), lost, options.analysis));
  if (!printed) return tl::unexpected(printed.error());
  return workload ? workload->exit_status() : 0;
}

}  // namespace sonde::pipeline
