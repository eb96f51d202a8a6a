// trace-cmd report's line layout, rebuilt without its per-field format parsing: the prefix
// (comm, pid, cpu, time, name) is formatted here; the payload comes from libtraceevent.
#include "tracedat/event_formatter.hpp"

#include <cstring>

#include <fmt/format.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

namespace sonde::tracedat {

namespace {

constexpr size_t kEventNameColumns = 20;  // trace-cmd pads " name: " to line up payloads

// tep_print_event's time field: `%<prec>.<div>d` rounds ts/div and prints
// "%5llu.%0<prec>llu" of it split at 10^prec (trace-cmd's " %6.1000d:", " %9.1d:", "%12d:").
void append_time(unsigned long long ts, int precision, unsigned divisor, std::string& out) {
  if (divisor > 1) ts = (ts + divisor / 2) / divisor;
  unsigned long long p10 = 1;
  for (int i = 0; i < precision; ++i) p10 *= 10;
  fmt::format_to(std::back_inserter(out), "{:5}.{:0{}}", ts / p10, ts % p10, precision);
}

}  // namespace

EventFormatter::EventFormatter(tep_handle* tep, FormatOptions options)
    : tep_(tep), options_(std::move(options)), seq_(new trace_seq) {
  trace_seq_init(seq_);
}

EventFormatter::~EventFormatter() {
  trace_seq_destroy(seq_);
  delete seq_;
}

void EventFormatter::format_dropped(const tep_record& record, std::string& out) {
  if (record.missed_events > 0)
    fmt::format_to(std::back_inserter(out), "CPU:{} [{} EVENTS DROPPED]\n", record.cpu,
                   record.missed_events);
  else if (record.missed_events < 0)
    fmt::format_to(std::back_inserter(out), "CPU:{} [EVENTS DROPPED]\n", record.cpu);
}

void EventFormatter::format(const tep_record& const_record, std::string& out) {
  // libtraceevent's API takes non-const records but only reads them.
  auto& record = const_cast<tep_record&>(const_record);
  format_dropped(record, out);
  out += options_.line_prefix;

  tep_event* event = tep_find_event_by_record(tep_, &record);
  if (!event) {
    // What tep_print_event writes for each of trace-cmd's four calls on an unknown event.
    out += "[UNKNOWN EVENT][UNKNOWN EVENT] (NULL):               [UNKNOWN EVENT]\n";
    return;
  }

  int pid = tep_data_pid(tep_, &record);
  const char* comm = tep_data_comm_from_pid(tep_, pid);
  fmt::format_to(std::back_inserter(out), "{:>16}-{:<5} [{:03}]", comm, pid, record.cpu);

  if (!options_.clock_in_ns) {
    append_time(record.ts, 12, 0, out);
  } else {
    out += ' ';
    if (options_.nanoseconds)
      append_time(record.ts, 9, 1, out);
    else
      append_time(record.ts, 6, 1000, out);
  }
  out += ": ";
  out += event->name;
  out += ": ";
  size_t name_length = std::strlen(event->name);
  if (name_length < kEventNameColumns) out.append(kEventNameColumns - name_length, ' ');

  trace_seq_reset(seq_);
  tep_print_event(tep_, seq_, &record, "%s", TEP_PRINT_INFO);
  // trace-cmd prints the line with "%.*s": a NUL in the payload ends it; one trailing newline is
  // dropped before its own.
  size_t length = strnlen(seq_->buffer, seq_->len);
  if (length > 0 && seq_->buffer[length - 1] == '\n' && length == seq_->len) --length;
  out.append(seq_->buffer, length);
  out += '\n';
}

}  // namespace sonde::tracedat
