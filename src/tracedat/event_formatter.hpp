#pragma once
// One event as `trace-cmd report` (3.1.6) prints it:
//
//     <comm>-<pid> [<cpu>] <seconds>.<usecs>: <event>: <payload>
//
// comm right-aligned in 16 columns, pid left-aligned in 5, cpu as [%03d], the event name padded
// to 20 columns, the payload as libtraceevent prints it with its plugins (sched_switch as
// `prev:pid [prio] S ==> next:pid [prio]`, function events as `func <-- parent`). A record
// that follows lost events is preceded by trace-cmd's `CPU:N [K EVENTS DROPPED]` line.
//
// Works on any tep_handle: one built from a trace.dat (tracedat::TraceDatReader) or one built
// from the local tracefs (e.g. tracefs_local_events()) for live records from trace_pipe_raw.
// For the live case, load plugins first (tep_load_plugins) so payloads match trace-cmd's, and
// set record.cpu, record.ts, record.data, record.size and record.missed_events.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "format/tep_payload.hpp"
#include "tracedat/kallsyms.hpp"
#include "tracedat/payload_printer.hpp"

struct tep_handle;
struct tep_record;
struct trace_seq;
struct tep_event;

namespace sonde::tracedat {

struct FormatOptions {
  bool nanoseconds = false;  // -t: seconds.nanoseconds instead of seconds.microseconds
  bool clock_in_ns = true;   // false for counter/x86-tsc clocks: raw counts, as trace-cmd
  std::string line_prefix;   // e.g. trace-cmd's "instance: " before each record of a buffer
  // Called once before the first payload that may need kernel symbols (libtraceevent's path,
  // or a fast one with %pS): lets a reader load kallsyms only when a report uses them. What it
  // returns (may be nullptr: the tep_handle's own functions then) is what fast payloads use.
  std::function<const KernelFunctions*()> need_kallsyms;
  // Where set, the address of a kernel symbol a print format names (0 if none), as
  // libtraceevent's lookup by name would give it: such formats then compile at once.
  std::function<unsigned long long(std::string_view)> symbol_address;
};

class EventFormatter {
 public:
  EventFormatter(tep_handle* tep, FormatOptions options = {});
  ~EventFormatter();
  EventFormatter(const EventFormatter&) = delete;
  EventFormatter& operator=(const EventFormatter&) = delete;

  // Appends the line for `record`, ending in '\n', to `out`.
  void format(const tep_record& record, std::string& out);
  // Only the dropped-events line, if any ("CPU:N [K EVENTS DROPPED]\n"); format() includes it.
  static void format_dropped(const tep_record& record, std::string& out);

 private:
  struct EventEntry {
    tep_event* event = nullptr;               // set once the entry is compiled
    bool recompiled = false;                  // tried again after libtraceevent printed one record of it
    std::string name_column;                  // "name: " padded to trace-cmd's 20 columns
    std::unique_ptr<PayloadPrinter> payload;  // nullptr where libtraceevent prints it
    PayloadShape shape;                       // what checking a record of it against the format needs
  };
  // The event's entry, compiled on first use; nullptr for an id libtraceevent does not know.
  EventEntry* entry_for(int id);
  void append_task(int pid, int cpu, std::string& out);
  void kallsyms_needed();

  tep_handle* tep_;
  FormatOptions options_;
  const KernelFunctions* functions_ = nullptr;
  trace_seq* seq_;                  // reused for every payload: no allocation per event once it has grown
  std::vector<EventEntry> events_;  // by event id (16 bits)
  // "%16s-%-5d" per pid whose comm is registered: a registered comm never changes (libtraceevent
  // registers without overriding), so the text can be kept.
  std::unordered_map<int, std::string> tasks_;
};

}  // namespace sonde::tracedat
