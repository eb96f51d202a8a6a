#pragma once
// The machine's tracing state in one picture (`sonde ftrace show`), and putting it back to the
// kernel's defaults (`sonde ftrace reset`).
#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"
#include "ftrace/instance.hpp"

namespace sonde::ftrace {

struct InstanceState {
  std::string name;  // "" for the top level
  std::string tracer, tracing_on, clock, buffer_size_kb, buffer_total_size_kb;
  std::vector<std::string> enabled_events;                    // set_event
  std::string event_pids, function_pids;                      // set_event_pid, set_ftrace_pid
  std::vector<std::pair<std::string, std::string>> filters;   // event, filter
  std::vector<std::pair<std::string, std::string>> triggers;  // event, trigger
  std::string function_filter;                                // set_ftrace_filter, or why it cannot be read
};

struct MachineState {
  std::string root;
  InstanceState top;
  std::vector<InstanceState> instances;
  std::vector<std::string> blk_devices;  // block devices with blktrace enabled
};

Result<InstanceState> read_instance_state(const Instance& instance);
Result<MachineState> read_machine_state();
// One screen: the top level, then each instance, then block devices.
std::string format_machine_state(const MachineState& state);

struct ResetReport {
  std::vector<std::string> removed_instances;
  std::vector<Error> failures;
};
// The instance back to the kernel's defaults: tracing on, tracer nop, no events, filters,
// triggers, pid lists or function filters, clock local, every CPU traced, the default options
// sonde changes (stacktrace, event-fork, function-fork), buffer emptied.
std::vector<Error> reset_instance(const Instance& instance);
// reset_instance on the top level, blktrace off on every block device, and instances removed:
// those sonde left behind (sonde-PID of a process that is gone) or, with all_instances, every one.
ResetReport reset_machine(bool all_instances);

// The instances a sonde run left behind: named sonde-PID, of a process that is gone (killed
// outright, so its events may still be enabled and its buffers filling).
std::vector<std::string> instances_left_behind(const Instance& top);

}  // namespace sonde::ftrace
