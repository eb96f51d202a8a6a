#pragma once
// One perf-record style capture: open the sampling events, start the workload (or sample the
// target as it is), drain the ring buffers into a sink until the workload ends, Ctrl-C, SIGTERM
// or a timeout, and say what was captured.
#include <linux/perf_event.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "capture/control_channel.hpp"
#include "capture/sampling_session.hpp"
#include "events/event_spec.hpp"

namespace sonde::capture {

enum class CallGraph { none, frame_pointer, dwarf };

struct RecordOptions {
  std::vector<std::string> command;   // run and sample this; empty to sample the target as it is
  SamplingTarget target;              // tids get the workload's pid for a command
  std::optional<uint64_t> frequency;  // -F
  std::optional<uint64_t> period;     // -c
  CallGraph call_graph = CallGraph::none;
  uint32_t dwarf_stack_size = 8192;  // --call-graph dwarf,SIZE
  uint16_t max_stack = 0;            // --call-graph fp,N: the kernel's sample_max_stack (0: its own limit)
  bool sample_cpu = false;           // -a/-C, or tracepoints: PERF_SAMPLE_CPU as perf adds it
  bool timestamps = true;            // -T is the default for sonde as for perf record
  bool raw_samples = false;          // -R
  bool switch_events = false;        // --switch-events
  bool inherit = true;               // -i turns it off
  size_t mmap_pages = 128;           // -m, data pages per CPU
  bool output_on_stdout = false;     // -o -: the workload's stdout goes to stderr instead
  std::optional<std::chrono::milliseconds> timeout;
  // perf record's attr options.
  enum class Privilege { both, user, kernel } privilege = Privilege::both;     // --all-user, --all-kernel
  enum class Callchains { both, user, kernel } callchains = Callchains::both;  // --user/--kernel-callchains
  bool no_samples = false;          // -n: count only, the side-band is still written
  uint64_t extra_sample_type = 0;   // -d, --phys-data, --data-page-size, --code-page-size, -W, ...
  bool data_mmaps = false;          // -d: MMAP records for data mappings too
  bool running_time = false;        // --running-time: each id's enabled and running times
  uint64_t intr_regs = 0;           // -I: the registers sampled at the interrupt (a PERF_REG mask)
  uint64_t user_regs = 0;           // --user-regs: the user registers sampled
  uint64_t branch_sample_type = 0;  // -b, -j: the branch stack asked for (PERF_SAMPLE_BRANCH_*)
  bool inherit_stat = false;        // -s: per-thread counts at each thread's exit
  bool all_cgroups = false;         // --all-cgroups: each sample's cgroup, CGROUP records
  bool namespaces = false;          // --namespaces: NAMESPACES records
  bool build_id_mmaps = false;      // --buildid-mmap: MMAP2 records carry the build-id
  std::optional<int> clockid;       // -k: the samples' clock
  bool no_buffering = false;        // --no-buffering: a wake-up on every record
  // --overwrite: flight-recorder buffers (write_backward), read only at a switch and at the end,
  // so the file holds the last part of the run.
  bool overwrite = false;
  // -D: the events start this long after the workload; negative: only on --control enable. The
  // last event is then perf's dummy tracking event, which carries the side-band from the start.
  std::optional<std::chrono::milliseconds> delay;
  bool tracking_event_last = false;
  ControlChannel* control = nullptr;  // --control: enable/disable/stop commands while recording
  std::function<bool()> should_stop;  // asked after each pass (--max-size); true ends the capture
  // --switch-output: called between passes on SIGUSR2 (switch_on_signal) or when should_switch
  // says so, to close the file written so far and start the next.
  // Each event's group leader (its index among the events; its own index when alone): members
  // are opened into their leader's group, enabled with it. Empty: no groups.
  std::vector<int> group_leaders;
  bool switch_on_signal = false;
  // --switch-output-event: each occurrence of this event on the target switches at once.
  std::optional<perf_event_attr> switch_event;
  std::function<bool()> should_switch;
  std::function<Result<void>()> on_switch;
  Diagnostics* notes = nullptr;  // perf's "Events enabled" lines
};

// The attrs perf record would open for these events and options, in order.
std::vector<perf_event_attr> record_attrs(const std::vector<events::EventSpec>& events,
                                          const RecordOptions& options);

struct RecordRunResult {
  uint64_t samples = 0;
  uint64_t lost = 0;          // samples the kernel dropped (PERF_RECORD_LOST)
  uint64_t bytes = 0;         // bytes of records drained
  int exit_status = 0;        // the workload's, as a shell reports it; 0 without one
  int stopped_by_signal = 0;  // SIGINT/SIGTERM/SIGHUP that ended the capture, else 0
};

// Called once the events are open (session.ids() has each attr's sample ids), before any record
// arrives and before the workload starts: where the caller writes the file's attrs and the
// synthesized side-band, and connects what writes into the events (the off-CPU profiler).
using OpenedCallback = std::function<Result<void>(const SamplingSession& session, pid_t workload_pid)>;
// Receives the drained records (whole records, kernel format); `end_of_round` after each pass.
struct CaptureSink {
  std::function<Result<void>(const void* data, size_t size)> records;
  std::function<Result<void>()> end_of_round;
};

// `filters[i]` is the tracepoint filter of attrs[i] (empty for none).
Result<RecordRunResult> run_record(const std::vector<perf_event_attr>& attrs,
                                   const std::vector<std::string>& filters, const RecordOptions& options,
                                   const OpenedCallback& on_opened, const CaptureSink& sink);

}  // namespace sonde::capture
