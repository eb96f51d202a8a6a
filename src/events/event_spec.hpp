#pragma once
// One event as perf's -e syntax describes it, resolved into the perf_event_attr the kernel takes.
#include <linux/perf_event.h>

#include <string>
#include <utility>
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
  bool in_group = false;          // written inside {...}
  std::string tracepoint_system;  // set for tracepoints ("syscalls")
  std::string tracepoint_name;    // set for tracepoints ("sys_enter_write")
  std::string filter;             // --filter text applied to this event (tracepoints)
  std::string cgroup;             // stat -G/--for-each-cgroup: counted only in this cgroup
  int max_stack = 0;              // /max-stack=N/ term; 0 when not given
  // What other terms and modifiers asked for, beyond the attr bits the parser sets itself.
  bool period_term = false;        // /period=N/ set attr.sample_period: -c/-F must not override it
  bool freq_term = false;          // /freq=N/ set attr.sample_freq and attr.freq
  std::string call_graph;          // /call-graph=fp|dwarf|lbr|no/
  uint32_t stack_size = 0;         // /stack-size=N/ for dwarf unwinding; 0 when not given
  int inherit = -1;                // /inherit/ 1, /no-inherit/ 0, -1 when not given
  bool percore = false;            // /percore/: sum counts over SMT siblings
  bool sample_read = false;        // :S  read the group on each sample
  bool weak_group = false;         // :W  drop the group when it cannot be scheduled as one
  bool precise_max = false;        // :P  the highest precise_ip the kernel takes
  bool bpf_counter = false;        // :b  count with BPF
  bool guest_host_chosen = false;  // a :G or :H modifier decided exclude_guest/host (perf's exclude_GH)
  bool is_tracepoint() const { return attr.type == PERF_TYPE_TRACEPOINT; }
};

// perf stat's -G: the comma-separated cgroups go to the events in order ("" for none); a single
// cgroup goes to every event. Fails when more cgroups than events are given.
bool assign_cgroups(std::vector<EventSpec>& events, const std::vector<std::string>& cgroups);
// The software dummy event (it never counts): the carrier of side-band records, named `name`.
inline EventSpec dummy_event(std::string name) {
  EventSpec dummy;
  dummy.name = std::move(name);
  dummy.attr.type = PERF_TYPE_SOFTWARE;
  dummy.attr.config = PERF_COUNT_SW_DUMMY;
  dummy.attr.size = sizeof dummy.attr;
  return dummy;
}

// perf stat's --for-each-cgroup: every event once per cgroup, cgroup by cgroup.
std::vector<EventSpec> expand_for_each_cgroup(const std::vector<EventSpec>& events,
                                              const std::vector<std::string>& cgroups);

}  // namespace sonde::events
