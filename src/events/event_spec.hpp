#pragma once
// One event as perf's -e syntax describes it, resolved into the perf_event_attr the kernel takes.
#include <linux/perf_event.h>

#include <string>
#include <vector>

namespace sonde::events {

struct EventSpec {
  // The name perf displays for the event: "task-clock", "cycles:u", "syscalls:sys_enter_write",
  // "msr/tsc/", "r1a8", or the /name=x/ term when given.
  std::string name;
  perf_event_attr attr{};
  // Index of this event's group leader within the parsed list; equal to its own index for a
  // leader or an event outside any group.
  int group_leader = 0;
  bool in_group = false;     // written inside {...}
  std::string tracepoint_system;  // set for tracepoints ("syscalls")
  std::string tracepoint_name;    // set for tracepoints ("sys_enter_write")
  std::string filter;        // --filter text applied to this event (tracepoints)
  int max_stack = 0;         // /max-stack=N/ term; 0 when not given
  bool is_tracepoint() const { return attr.type == PERF_TYPE_TRACEPOINT; }
};

}  // namespace sonde::events
