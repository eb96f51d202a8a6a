#pragma once
// Sets the kernel up for one trace-cmd style request and puts everything back afterwards.
// Tracing happens in sonde's own instance; a tracer the kernel allows only at the top level
// (blk, the function tracer on older kernels) moves the whole request there, and then every
// top-level file sonde writes is saved first and restored at the end.
#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "ftrace/buffer_stats.hpp"
#include "ftrace/event_selection.hpp"
#include "ftrace/instance.hpp"
#include "ftrace/undo_log.hpp"

namespace sonde::ftrace {

// One -e with the -f filters and -R triggers that followed it.
struct EventRequest {
  std::string spec;
  std::vector<std::string> filters, triggers;
};

struct TracingRequest {
  std::string tracer;  // "" for none; -l/-n imply "function", -g "function_graph"
  std::vector<std::string> function_filters, notrace_filters, graph_functions;
  std::vector<EventRequest> events;
  std::vector<pid_t> pids;                 // trace only these tasks (set_event_pid, set_ftrace_pid)
  bool follow_children = false;            // and their children (event-fork, function-fork)
  unsigned long buffer_kb = 0;             // per-CPU buffer size; 0 keeps the kernel's
  std::string clock;                       // trace_clock; "" keeps the kernel's
  std::string cpumask;                     // tracing_cpumask (hex); "" keeps all CPUs
  bool stacktrace = false;                 // a kernel stack trace after every event
  std::vector<std::string> block_devices;  // for the blk tracer: loop0, vda, /dev/vda1...
};

class TracingSession {
 public:
  // Prepares everything with tracing off. What the kernel refuses but tracing can go on without
  // (the function tracer under lockdown while events were asked for) is a note to `diagnostics`;
  // anything else that fails is the error, after putting back what was already changed.
  static Result<std::unique_ptr<TracingSession>> set_up(const TracingRequest& request,
                                                        Diagnostics& diagnostics);
  ~TracingSession();

  // Tracing on, events enabled, triggers installed (in that order, so that a trigger cannot
  // fire before the buffer records).
  Result<void> start();
  // Tracing off (the buffers keep what they have for the readers to drain).
  void stop();
  // Restores every file sonde changed and removes its instance; the failures, one line each.
  std::vector<Error> tear_down();

  const Instance& instance() const { return *instance_; }
  // Every event enabled, in the order requested.
  const std::vector<TraceEvent>& events() const { return events_; }
  // The tracer actually set ("" when none or refused).
  const std::string& tracer() const { return tracer_; }
  // Each CPU's buffer statistics when tracing started (the top level's counters run from boot).
  const std::vector<std::pair<int, CpuBufferStats>>& stats_at_start() const { return stats_at_start_; }

 private:
  TracingSession() = default;
  Result<void> choose_instance(const TracingRequest& request, Diagnostics& diagnostics);
  Result<void> save_and_write(const std::string& file, std::string_view text);
  Result<void> set_buffer_options(const TracingRequest& request);
  Result<void> set_tracer(const TracingRequest& request, Diagnostics& diagnostics);
  Result<void> set_function_filters(const TracingRequest& request);
  Result<void> set_block_devices(const TracingRequest& request);
  Result<void> select_and_filter_events(const TracingRequest& request);
  Result<void> install_triggers();

  std::unique_ptr<Instance> instance_;
  UndoLog undo_;
  std::string tracer_;
  std::vector<EventRequest> requests_;
  std::vector<EventSelection> selections_;
  std::vector<TraceEvent> events_;
  std::vector<std::pair<int, CpuBufferStats>> stats_at_start_;
  bool torn_down_ = false;
};

// The tracers the kernel lists in a tracefs directory's available_tracers.
std::vector<std::string> available_tracers(const Instance& instance);

}  // namespace sonde::ftrace
