#include "capture/counting_run.hpp"

#include <algorithm>
#include <csignal>
#include <ctime>

#include "capture/signals.hpp"
#include "capture/tasks.hpp"
#include "capture/workload.hpp"

namespace sonde::capture {

namespace {

using Clock = std::chrono::steady_clock;

// How often an attached target (-p, -t) is checked for having exited. perf checks every second.
constexpr std::chrono::milliseconds kTargetPoll{100};
// How often --control's descriptor is read for commands.
constexpr std::chrono::milliseconds kControlPoll{20};

double ns_since(Clock::time_point start) {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

}  // namespace

Result<CountingRunResult> run_counting(const std::vector<events::EventSpec>& events,
                                       const CountingRunOptions& options, const IntervalCallback& on_interval,
                                       Diagnostics& diagnostics) {
  // Block before forking so a signal between fork and the wait loop is not lost.
  BlockedSignals signals;
  std::optional<Workload> workload;
  CountingTarget target = options.target;
  if (!options.command.empty()) {
    auto prepared = Workload::prepare(options.command);
    if (!prepared) return tl::unexpected(prepared.error());
    workload.emplace(std::move(*prepared));
    if (target.kind == CountingTarget::Kind::workload) target.ids = {workload->pid()};
  }
  if (options.delay) target.start_disabled = true;

  auto session = CounterSession::open(events, target, options.counting, diagnostics);
  if (!session) return tl::unexpected(session.error());

  CountingRunResult result;
  result.had_workload = workload.has_value();
  result.slots = session->slots();
  bool counting_at_exec = target.kind == CountingTarget::Kind::workload;

  // Counters not tied to the workload's exec start before it, so none of its work is missed.
  if (!counting_at_exec && !options.delay) {
    if (auto enabled = session->enable(); !enabled) return tl::unexpected(enabled.error());
  }
  Clock::time_point start = Clock::now();
  if (workload) {
    if (auto started = workload->start(); !started) return tl::unexpected(started.error());
  }

  // Without a workload of our own, an attached target's exit ends the measurement.
  bool watch_target = !workload && (target.kind == CountingTarget::Kind::processes ||
                                    target.kind == CountingTarget::Kind::threads);
  // -D: perf's messages, on stderr, when the counters wait and when they start.
  bool enable_pending = false;
  Clock::time_point enable_at = start;
  if (options.delay) {
    diagnostics.note("Events disabled");
    enable_pending = options.delay->count() >= 0;
    if (enable_pending) enable_at = start + *options.delay;
  }
  auto set_enabled = [&](bool enabled) -> Result<void> {
    if (enabled) {
      if (auto done = session->enable(); !done) return done;
    } else {
      session->disable();
    }
    diagnostics.note(enabled ? "Events enabled" : "Events disabled");
    return {};
  };
  int intervals_done = 0;
  bool interval_limit_reached = false;
  Clock::time_point next_tick = start + options.interval.value_or(std::chrono::milliseconds(0));
  auto stop_for = [&](const ReceivedSignal& signal) {
    result.stopped_by_signal = signal.number;
    // A Ctrl-C at the terminal reached the workload's process group already.
    if (workload) workload->stop(signal.from_terminal);
  };
  while (true) {
    if (workload && workload->reap()) break;
    if (watch_target && !any_alive(target.ids)) break;
    std::optional<std::chrono::nanoseconds> wait_for;
    Clock::time_point now = Clock::now();
    if (watch_target) wait_for = kTargetPoll;
    if (options.control) wait_for = kControlPoll;
    if (enable_pending) {
      auto to_enable = std::chrono::duration_cast<std::chrono::nanoseconds>(enable_at - now);
      if (!wait_for || to_enable < *wait_for) wait_for = std::max(to_enable, std::chrono::nanoseconds(0));
    }
    if (options.interval) {
      auto to_tick = std::chrono::duration_cast<std::chrono::nanoseconds>(next_tick - now);
      if (!wait_for || to_tick < *wait_for) wait_for = to_tick;
    }
    if (options.timeout) {
      auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(start + *options.timeout - now);
      if (left.count() <= 0) break;
      if (!wait_for || left < *wait_for) wait_for = left;
    }
    ReceivedSignal signal = signals.wait(wait_for);
    if (is_stop_request(signal.number)) {
      stop_for(signal);
      break;
    }
    if (enable_pending && Clock::now() >= enable_at) {
      enable_pending = false;
      if (auto enabled = set_enabled(true); !enabled) return tl::unexpected(enabled.error());
    }
    auto stop_requested = options.control ? options.control->serve(set_enabled) : Result<bool>(false);
    if (!stop_requested) return tl::unexpected(stop_requested.error());
    if (*stop_requested) {
      stop_for(ReceivedSignal{SIGTERM, false});
      break;
    }
    if (options.interval && Clock::now() >= next_tick) {
      auto counts = session->read();
      if (!counts) return tl::unexpected(counts.error());
      on_interval(ns_since(start), result.slots, *counts);
      next_tick += *options.interval;
      if (options.interval_count && ++intervals_done >= *options.interval_count) {
        interval_limit_reached = true;
        break;
      }
    }
  }
  bool ended_by_us = false;
  if (workload && !workload->ended()) {
    // Stopped by the timeout or interval count: end the workload as perf does.
    ::kill(workload->pid(), SIGTERM);
    workload->wait();
    ended_by_us = true;
  }
  // A stop request that came while finishing still counts as one.
  for (ReceivedSignal late = signals.poll(); late.number != 0; late = signals.poll())
    if (is_stop_request(late.number) && result.stopped_by_signal == 0) result.stopped_by_signal = late.number;
  result.elapsed_ns = ns_since(start);
  session->disable();
  auto counts = session->read();
  if (!counts) return tl::unexpected(counts.error());
  // The last, partial interval, as perf prints it.
  if (options.interval && !interval_limit_reached) on_interval(result.elapsed_ns, result.slots, *counts);
  result.syscall_follow_failures = session->syscall_follow_failures();
  result.counts = std::move(*counts);
  if (workload) {
    result.workload_usage = workload->usage();
    result.workload_wait_status = workload->wait_status();
    // A workload sonde ended on purpose (--timeout, --interval-count) is not a failure.
    result.exit_status = ended_by_us ? 0 : workload->exit_status();
  }
  return result;
}

}  // namespace sonde::capture
