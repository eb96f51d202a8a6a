// trace-cmd report's line layout, rebuilt without its per-field format parsing: the prefix
// (comm, pid, cpu, time, name) is formatted here; the payload comes from libtraceevent.
#include "tracedat/event_formatter.hpp"

#include <fmt/format.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <cstring>

namespace sonde::tracedat {

namespace {

constexpr size_t kEventNameColumns = 20;  // trace-cmd pads " name: " to line up payloads

// Decimal digits of `value`, right-aligned in `width` with `fill`; how many were written.
size_t put_decimal(char* out, unsigned long long value, size_t width, char fill) {
  char digits[24];
  size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value);
  size_t length = 0;
  while (length + n < width) out[length++] = fill;
  while (n) out[length++] = digits[--n];
  return length;
}

// tep_print_event's time field: `%<prec>.<div>d` rounds ts/div and prints
// "%5llu.%0<prec>llu" of it split at 10^prec (trace-cmd's " %6.1000d:", " %9.1d:", "%12d:").
void append_time(unsigned long long ts, size_t precision, unsigned divisor, std::string& out) {
  if (divisor > 1) ts = (ts + divisor / 2) / divisor;
  unsigned long long p10 = 1;
  for (size_t i = 0; i < precision; ++i) p10 *= 10;
  char text[64];
  size_t length = put_decimal(text, ts / p10, 5, ' ');
  text[length++] = '.';
  length += put_decimal(text + length, ts % p10, precision, '0');
  out.append(text, length);
}

// "%16s-%-5d": comm right-aligned, pid left-aligned.
std::string task_text(const char* comm, int pid) {
  std::string out;
  size_t comm_length = std::strlen(comm);
  if (comm_length < 16) out.append(16 - comm_length, ' ');
  out.append(comm, comm_length);
  char text[32];
  size_t length = 0;
  text[length++] = '-';
  if (pid < 0) text[length++] = '-';
  size_t digits = put_decimal(
      text + length,
      pid < 0 ? 0ull - static_cast<unsigned long long>(pid) : static_cast<unsigned long long>(pid), 0, ' ');
  length += digits;
  for (size_t used = digits + (pid < 0); used < 5; ++used) text[length++] = ' ';
  out.append(text, length);
  return out;
}

// " [%03d]"
void append_cpu(int cpu, std::string& out) {
  char text[24];
  size_t length = 0;
  text[length++] = ' ';
  text[length++] = '[';
  if (cpu < 0) {
    text[length++] = '-';
    length += put_decimal(text + length, 0ull - static_cast<unsigned long long>(cpu), 2, '0');
  } else {
    length += put_decimal(text + length, static_cast<unsigned long long>(cpu), 3, '0');
  }
  text[length++] = ']';
  out.append(text, length);
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
    fmt::format_to(std::back_inserter(out), "CPU:{} [{} EVENTS DROPPED]\n", record.cpu, record.missed_events);
  else if (record.missed_events < 0)
    fmt::format_to(std::back_inserter(out), "CPU:{} [EVENTS DROPPED]\n", record.cpu);
}

EventFormatter::EventEntry* EventFormatter::entry_for(int id) {
  if (id >= 0 && static_cast<size_t>(id) < events_.size() && events_[static_cast<size_t>(id)].event)
    return &events_[static_cast<size_t>(id)];
  tep_event* event = tep_find_event(tep_, id);
  if (!event || id < 0 || id > 0xffff) return nullptr;
  if (events_.size() <= static_cast<size_t>(id)) events_.resize(static_cast<size_t>(id) + 1);
  EventEntry& entry = events_[static_cast<size_t>(id)];
  entry.event = event;
  entry.name_column = event->name;
  entry.name_column += ": ";
  size_t name_length = std::strlen(event->name);
  if (name_length < kEventNameColumns) entry.name_column.append(kEventNameColumns - name_length, ' ');
  entry.shape = payload_shape(event);
  entry.payload = PayloadPrinter::compile(event, options_.symbol_address);
  if (entry.payload && entry.payload->needs_kallsyms()) {
    kallsyms_needed();
    entry.payload->use_functions(functions_);
  }
  return &entry;
}

void EventFormatter::kallsyms_needed() {
  if (!options_.need_kallsyms) return;
  functions_ = options_.need_kallsyms();
  options_.need_kallsyms = nullptr;
}

void EventFormatter::append_task(int pid, int cpu, std::string& out) {
  auto known = tasks_.find(pid);
  if (known != tasks_.end()) {
    out += known->second;
  } else if (tep_is_pid_registered(tep_, pid)) {
    out += tasks_.emplace(pid, task_text(tep_data_comm_from_pid(tep_, pid), pid)).first->second;
  } else {
    out += task_text(tep_data_comm_from_pid(tep_, pid), pid);  // "<...>" until a comm is learned
  }
  append_cpu(cpu, out);
}

void EventFormatter::format(const tep_record& const_record, std::string& out) {
  // libtraceevent's API takes non-const records but only reads them.
  auto& record = const_cast<tep_record&>(const_record);
  // trace-cmd writes the buffer's prefix first, so after lost events it heads the
  // "EVENTS DROPPED" line and the record's own line has none.
  out += options_.line_prefix;
  format_dropped(record, out);

  if (record.size < kCommonFieldsSize) {
    out += fmt::format("[damaged record of {} bytes]\n", record.size);
    return;
  }
  int id = tep_data_type(tep_, &record);
  EventEntry* entry = entry_for(id);
  if (!entry) {
    // What tep_print_event writes for each of trace-cmd's four calls on an unknown event.
    out += "[UNKNOWN EVENT][UNKNOWN EVENT] (NULL):               [UNKNOWN EVENT]\n";
    return;
  }

  append_task(tep_data_pid(tep_, &record), record.cpu, out);

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
  out += entry->name_column;

  // libtraceevent reads every field at its declared place, whatever the record's size.
  if (!payload_holds_fields(entry->event, entry->shape, record.data, record.size)) {
    out += fmt::format("[damaged record: its {} bytes do not hold the fields of its format]\n", record.size);
    return;
  }
  size_t payload_start = out.size();
  if (!entry->payload || !entry->payload->print(record, out)) {
    kallsyms_needed();
    trace_seq_reset(seq_);
    tep_print_event(tep_, seq_, &record, "%s", TEP_PRINT_INFO);
    if (!entry->payload && !entry->recompiled) {
      // libtraceevent rewrites symbol names in a print format as numbers once it has looked
      // them up (e.g. vmemmap_base); such formats compile after their first record.
      entry->recompiled = true;
      entry->payload = PayloadPrinter::compile(entry->event, options_.symbol_address);
      if (entry->payload) entry->payload->use_functions(functions_);
    }
    // trace-cmd prints the line with "%.*s": a NUL in the payload ends it.
    out.append(seq_->buffer, strnlen(seq_->buffer, seq_->len));
    if (out.size() - payload_start < seq_->len) {
      out += '\n';
      return;
    }
  }
  // One trailing newline of the payload is dropped before trace-cmd's own.
  if (out.size() > payload_start && out.back() == '\n') out.pop_back();
  out += '\n';
}

}  // namespace sonde::tracedat
