#include "pipeline/top_run.hpp"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <thread>
#include <utility>

#include "analysis/report/report_run.hpp"
#include "analysis/top/top_profile.hpp"
#include "capture/open_event.hpp"
#include "capture/record_sideband.hpp"
#include "events/modifiers.hpp"
#include "events/parse_events.hpp"
#include "kernel/cpus.hpp"
#include "output/top/top_header.hpp"
#include "perfdata/attrs.hpp"
#include "session/batch_channel.hpp"
#include "session/ordered_records.hpp"
#include "session/side_band.hpp"

namespace sonde::pipeline {

namespace {

// perf top's target text: " (all, 2 CPUs)", " (all, CPUs: 0,1)", " (target_pid: 12)", " (target_tid: 12)".
std::string target_text(const RecordTargetSpec& spec, size_t cpus) {
  if (!spec.pids.empty()) return fmt::format(" (target_pid: {})", spec.pids);
  if (!spec.tids.empty()) return fmt::format(" (target_tid: {})", spec.tids);
  if (!spec.cpu_list.empty()) return fmt::format(" (all, CPU{}: {})", cpus > 1 ? "s" : "", spec.cpu_list);
  return fmt::format(" (all, {} CPU{})", cpus, cpus > 1 ? "s" : "");
}

// What the header line counts between two screens.
struct ScreenCounts {
  uint64_t samples = 0, kernel = 0, exact = 0;
};

}  // namespace

Result<TopResult> run_top(TopOptions options, Diagnostics& diagnostics) {
  // Ctrl-C and the like are the capture loop's to wait for: blocked before any thread starts
  // (the kernel symbols' loader, the worker), which would otherwise take them and die.
  sigset_t stops, previous;
  sigemptyset(&stops);
  for (int signal : {SIGINT, SIGTERM}) sigaddset(&stops, signal);
  struct sigaction hangup {};
  if (sigaction(SIGHUP, nullptr, &hangup) != 0 || hangup.sa_handler != SIG_IGN) sigaddset(&stops, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stops, &previous);
  struct MaskBack {
    sigset_t mask;
    ~MaskBack() { pthread_sigmask(SIG_SETMASK, &mask, nullptr); }
  } mask_back{previous};
  capture::RecordOptions& record = options.record;
  if (options.target.pids.empty() && options.target.tids.empty()) options.target.system_wide = true;
  UniqueFd cgroup;
  if (auto resolved = resolve_record_target(options.target, record, cgroup); !resolved)
    return tl::unexpected(resolved.error());
  const bool default_event_used = options.events.empty();
  if (default_event_used) {
    if (auto parsed = events::parse_events(default_event(), options.events); !parsed)
      return tl::unexpected(parsed.error());
  }
  TopResult result;
  Diagnostics kept;
  capture::fall_back_to_user_only(options.events, options.verbose ? diagnostics : kept);
  if (auto fallen = capture::fall_back_to_cpu_clock(options.events, options.verbose ? diagnostics : kept);
      !fallen)
    return tl::unexpected(fallen.error());
  // perf top's default event asks for the highest precision (precise_max), which cpu-clock takes
  // as 3: perf names the fallen-back event from its attr, "cpu-clock:pppH".
  events::EventSpec& first = options.events[0];
  if (default_event_used && first.attr.type == PERF_TYPE_SOFTWARE &&
      first.attr.config == PERF_COUNT_SW_CPU_CLOCK) {
    first.attr.precise_ip = 3;
    first.attr.exclude_guest = 1;
    first.name = "cpu-clock" + events::modifier_suffix_from_attr(first.attr);
  }
  if (!record.frequency && !record.period) record.frequency = 4000;
  record.sample_cpu = true;
  const std::vector<perf_event_attr> attrs = capture::record_attrs(options.events, record);

  perfdata::AttrTable table;
  session::Machine machine;
  session::SessionStats stats;
  analysis::ReportRequest request;
  auto resolver = analysis::make_frame_resolver(request, nullptr);
  resolver->prefetch_kernel_symbols();
  const std::vector<analysis::SortKey> keys =
      options.keys.empty() ? std::vector<analysis::SortKey>{analysis::SortKey::dso, analysis::SortKey::sym}
                           : options.keys;
  analysis::TopProfile profile(*resolver, keys);
  // perf's ordered events: each drain reads the CPUs' buffers one after the other, so a record
  // of one CPU may come a drain later than a newer one of another (an exec's COMM before the
  // execve's own sample on the CPU it left).
  session::OrderedRecords ordered;

  auto on_opened = [&](const capture::SamplingSession& session, pid_t) -> Result<void> {
    for (size_t i = 0; i < attrs.size(); ++i) table.add(attrs[i], session.ids()[i]);
    // The kernel's maps and the maps of the tasks that exist already.
    auto synthesized = capture::synthesize_record_sideband(attrs[0], record.target, false);
    if (!synthesized) return tl::unexpected(synthesized.error());
    session::apply_side_band_records(machine, *synthesized, stats);
    // perf top names the running kernel [kernel] (perf report names a file's [kernel.kallsyms]).
    for (const auto& dso : machine.dsos().all())
      if (dso->kind == session::DsoKind::kernel) dso->short_name = "[kernel]";
    return {};
  };

  // The keys' toggles: set on the capture thread, read on the worker.
  std::atomic<bool> zero = options.toggles.zero, hide_kernel = options.toggles.hide_kernel,
                    hide_user = options.toggles.hide_user;
  ScreenCounts counts;
  uint64_t lost_total = 0, lost_since = 0;
  perfdata::Sample sample;
  auto take = [&](const perfdata::RecordView& view) {
    if (view.type() != PERF_RECORD_SAMPLE) {
      // LOST is {id, lost}; LOST_SAMPLES {lost}, then its sample_id.
      size_t at = sizeof(perf_event_header) + (view.type() == PERF_RECORD_LOST ? 8 : 0);
      if ((view.type() == PERF_RECORD_LOST || view.type() == PERF_RECORD_LOST_SAMPLES) &&
          view.bytes.size() >= at + 8) {
        uint64_t lost = load<uint64_t>(view.bytes.data() + at);
        lost_total += lost;
        lost_since += lost;
      }
      session::apply_side_band(machine, view, stats);
      uint32_t type = view.type();
      if ((type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2) &&
          (view.header.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
        profile.kernel_maps_changed();
      return;
    }
    const perfdata::EventAttr* event = table.for_record(view);
    if (event == nullptr || !perfdata::decode_sample_into(view, event->attr, sample)) return;
    uint8_t cpumode = view.header.misc & PERF_RECORD_MISC_CPUMODE_MASK;
    ++counts.samples;
    if (cpumode == PERF_RECORD_MISC_KERNEL) ++counts.kernel;
    // perf top: -K and -U leave samples out of the entries, not out of the header's counts.
    bool kernel = cpumode == PERF_RECORD_MISC_KERNEL;
    if ((kernel && hide_kernel) || (cpumode == PERF_RECORD_MISC_USER && hide_user)) return;
    if (!kernel && cpumode != PERF_RECORD_MISC_USER) return;  // guest or unknown: perf top leaves them out
    if (view.header.misc & PERF_RECORD_MISC_EXACT_IP) ++counts.exact;
    uint64_t period = sample.has(PERF_SAMPLE_PERIOD) ? sample.period : 0;
    if (period == 0) period = event->attr.freq ? 1 : event->attr.sample_period;
    // perf top shows its first event (-e a,b: the first one's entries; the others count nowhere).
    if (event != &table.events()[0]) return;
    session::Thread& thread =
        machine.thread(static_cast<int32_t>(sample.pid), static_cast<int32_t>(sample.tid));
    profile.add(machine, thread, sample, cpumode, period);
  };

  analysis::HistOptions hist;
  hist.keys = keys;
  hist.children = options.children;
  hist.max_stack = options.max_stack;
  output::ReportLayout layout = options.layout;
  layout.keys = hist.keys;
  layout.children = options.children;

  output::TopHeaderFacts facts;
  facts.event = options.events[0].name;
  facts.one_event = options.events.size() == 1;
  // perf prints the first attr's sample_period (a union with sample_freq), "Hz" unless -c: a
  // tracepoint's period of 1 shows as "1Hz".
  facts.rate = attrs[0].sample_period;
  facts.hertz = !record.period;
  facts.target = target_text(options.target, record.target.cpus.size());
  const uint64_t delay_seconds = static_cast<uint64_t>(std::max<int64_t>(1, options.delay.count() / 1000));

  auto last_screen = std::chrono::steady_clock::now();
  // Once the events are on (no sample yet: perf's first screen) and every -d seconds after.
  auto show_screen = [&] {
    last_screen = std::chrono::steady_clock::now();
    // perf's rates: the counts since the last screen over -d (not the time that passed), each
    // cut to a whole number first.
    uint64_t per_second = counts.samples / delay_seconds;
    uint64_t kernel_per_second = counts.kernel / delay_seconds;
    facts.samples_per_second = static_cast<double>(per_second);
    facts.kernel_percent = per_second ? 100.0 * static_cast<double>(kernel_per_second) / per_second : 0;
    facts.exact_percent = counts.samples ? 100.0 * static_cast<double>(counts.exact) / counts.samples : 0;
    facts.lost = lost_since;
    facts.lost_total = lost_total;
    counts = {};
    lost_since = 0;
    hist.callchains = profile.has_callchains();
    layout.callchains = hist.callchains;
    profile.build(hist);
    options.show(output::top_screen(facts, profile.histogram(), profile.tables(), layout, options.entries,
                                    options.width));
    profile.age(zero, hide_user, hide_kernel);
  };

  // The capture thread only drains: each round's records go whole to a worker that orders,
  // folds and draws, so a burst of samples does not wait behind a screen (perf top's reader and
  // processing threads). An empty batch is a tick: time for a screen, perhaps.
  session::BatchChannel<uint8_t> rounds(256);
  std::thread worker([&] {
    // Signals are the capture thread's to wait for (Ctrl-C ends top there, with status 0).
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    std::vector<uint8_t> batch;
    bool first_screen = true;
    auto last_data = std::chrono::steady_clock::now();
    while (rounds.take(batch)) {
      for (size_t at = 0; at + sizeof(perf_event_header) <= batch.size();) {
        perfdata::RecordView drained =
            perfdata::record_view_at(batch.data() + at, load<perf_event_header>(batch.data() + at).size);
        at += drained.header.size;
        uint64_t time = 0;
        if (const perfdata::EventAttr* event = table.for_record(drained)) {
          if (drained.type() == PERF_RECORD_SAMPLE)
            time = perfdata::sample_time(drained, event->attr).value_or(0);
          else if (auto id = perfdata::decode_sample_id(drained, event->attr); id && id->present)
            time = id->time;
        }
        ordered.push(drained, time);
      }
      // What is older than the newest record by a quarter of a second is delivered. perf's rounds
      // (up to the previous drain's newest) let a sample read early from one CPU pass its
      // process's COMM read late from another when the machine is busy.
      // With nothing drained for as long, everything queued is complete.
      constexpr uint64_t kLag = 250'000'000;
      auto now = std::chrono::steady_clock::now();
      if (!batch.empty()) last_data = now;
      if (now - last_data > std::chrono::nanoseconds(kLag))
        ordered.flush_up_to_time(UINT64_MAX, take);
      else if (!batch.empty() && ordered.newest_time() > kLag)
        ordered.flush_up_to_time(ordered.newest_time() - kLag, take);
      // The first screen, empty, once the events are on (perf top's comes at once too).
      if (std::exchange(first_screen, false) ||
          std::chrono::steady_clock::now() - last_screen >= options.delay)
        show_screen();
    }
  });
  std::vector<uint8_t> round;
  auto stop_worker = [&] {
    rounds.close();
    worker.join();
  };
  record.should_stop = [&] {
    TopToggles toggles{zero, hide_kernel, hide_user};
    if (options.poll_input && !options.poll_input(toggles)) {
      result.quit = true;
      return true;
    }
    zero = toggles.zero;
    hide_kernel = toggles.hide_kernel;
    hide_user = toggles.hide_user;
    std::vector<uint8_t> tick;
    rounds.put(tick);
    return false;
  };
  capture::CaptureSink sink{[&](const void* data, size_t size) -> Result<void> {
                              round.insert(round.end(), static_cast<const uint8_t*>(data),
                                           static_cast<const uint8_t*>(data) + size);
                              return {};
                            },
                            [&]() -> Result<void> {
                              rounds.put(round);
                              return {};
                            }};
  auto run = capture::run_record(attrs, std::vector<std::string>(attrs.size()), record, on_opened, sink);
  stop_worker();
  if (!run) return tl::unexpected(run.error());
  result.samples = run->samples;
  result.lost = run->lost;
  result.stopped_by_signal = run->stopped_by_signal;
  return result;
}

}  // namespace sonde::pipeline
