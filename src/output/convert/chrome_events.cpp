#include "output/convert/chrome_events.hpp"

#include <fmt/format.h>
#include <traceevent/event-parse.h>

#include <algorithm>

#include "output/convert/perf_json.hpp"
#include "output/convert/tracepoint_values.hpp"

namespace sonde::output {

namespace {

// Per-CPU tracks sit in a process of their own, far from real pids.
constexpr int64_t kCpuProcess = int64_t{1} << 30;
constexpr uint32_t kMaxCpus = 4096;

// Microseconds, the format's unit, with the nanoseconds kept as three decimals.
void append_micros(std::string& out, uint64_t ns) {
  append_json_number(out, ns / 1000);
  out.push_back('.');
  uint64_t fraction = ns % 1000;
  out.push_back(static_cast<char>('0' + fraction / 100));
  out.push_back(static_cast<char>('0' + fraction / 10 % 10));
  out.push_back(static_cast<char>('0' + fraction % 10));
}

}  // namespace

ChromeEvents::ChromeEvents(OutputStream& out) : out_(out) {
  text_.reserve(kJsonFlushSize + 64 * 1024);
  text_.append("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":\"sonde\"},\"traceEvents\":[");
}

void ChromeEvents::begin_event() {
  if (!first_event_) text_.push_back(',');
  first_event_ = false;
  text_.push_back('\n');
}

void ChromeEvents::drain() {
  if (!status_) {
    text_.clear();  // the output failed: what follows is dropped, finish() says why
    return;
  }
  if (text_.size() < kJsonFlushSize) return;
  bytes_put_ += text_.size();
  status_ = out_.put(text_);
  text_.reserve(kJsonFlushSize + 64 * 1024);
}

void ChromeEvents::append_place(int64_t pid, int64_t tid, uint64_t time) {
  text_.append(",\"pid\":");
  append_json_number(text_, pid);
  text_.append(",\"tid\":");
  append_json_number(text_, tid);
  text_.append(",\"ts\":");
  append_micros(text_, time);
}

void ChromeEvents::complete_event(std::string_view name_json, int64_t pid, int64_t tid, uint64_t start,
                                  uint64_t end) {
  begin_event();
  text_.append("{\"ph\":\"X\",\"name\":");
  text_.append(name_json);
  append_place(pid, tid, start);
  text_.append(",\"dur\":");
  append_micros(text_, end - start);
  text_.push_back('}');
}

void ChromeEvents::duration(char phase, std::string_view name_json, int64_t pid, int64_t tid, uint64_t time) {
  begin_event();
  text_.append("{\"ph\":\"");
  text_.push_back(phase);
  text_.append("\",\"name\":");
  text_.append(name_json);
  append_place(pid, tid, time);
  text_.push_back('}');
  drain();
}

void ChromeEvents::tracepoint(std::string_view name, int64_t pid, int64_t tid, uint64_t time, int64_t cpu,
                              const tep_event* format, const uint8_t* raw, size_t size) {
  begin_event();
  text_.append("{\"ph\":\"i\",\"s\":\"t\",\"name\":");
  append_json_string(text_, name);
  append_place(pid, tid, time);
  text_.append(",\"args\":{");
  bool first = true;
  if (cpu >= 0) {
    text_.append("\"cpu\":");
    append_json_number(text_, cpu);
    first = false;
  }
  for (const tep_format_field* field = format != nullptr ? format->format.fields : nullptr; field != nullptr;
       field = field->next) {
    if (!first) text_.push_back(',');
    first = false;
    append_json_string(text_, field->name);
    text_.push_back(':');
    FieldPlace place = field_place(*field, raw, size);
    bool is_signed = (field->flags & TEP_FIELD_IS_SIGNED) != 0;
    if (field->flags & TEP_FIELD_IS_STRING) {
      append_json_string(text_, field_string(raw, size, place.offset));
    } else if (field->flags & TEP_FIELD_IS_ARRAY) {
      // Numbers of the element size; a dynamic array's length comes from its __data_loc.
      size_t element = field->arraylen > 0 ? static_cast<size_t>(field->size / field->arraylen) : 1;
      size_t count = element > 0 ? place.length / element : 0;
      text_.push_back('[');
      for (size_t i = 0; i < count; ++i) {
        if (i != 0) text_.push_back(',');
        append_json_number(text_, field_number(raw, size, place.offset + i * element, element, false));
      }
      text_.push_back(']');
    } else {
      uint64_t value = field_number(raw, size, place.offset, place.length, is_signed);
      if (is_signed)
        append_json_number(text_, static_cast<int64_t>(value));
      else
        append_json_number(text_, value);
    }
  }
  text_.append("}}");
  drain();
}

void ChromeEvents::sched_switch(uint32_t cpu, uint64_t time, const tep_event* format, const uint8_t* raw,
                                size_t size) {
  NextTask next;
  if (format == nullptr || !read_next_task(*format, raw, size, next)) return;
  if (cpu >= kMaxCpus) return;  // a damaged sample's CPU
  if (cpu >= cpus_.size()) cpus_.resize(cpu + 1);
  CpuTrack& track = cpus_[cpu];
  if (track.open && time >= track.start) {
    std::string name;
    append_json_string(name, track.name);
    complete_event(name, kCpuProcess, kCpuProcess + cpu, track.start, time);
  }
  // The idle task leaves the CPU's track empty.
  track.open = next.pid != 0;
  track.start = time;
  track.name = fmt::format("{} {}", next.comm, next.pid);
}

void ChromeEvents::name_thread(int64_t pid, int64_t tid, std::string_view comm) {
  thread_names_.push_back({pid, tid, std::string(comm)});
}

void ChromeEvents::metadata(std::string_view what, int64_t pid, int64_t tid, std::string_view name) {
  begin_event();
  text_.append("{\"ph\":\"M\",\"name\":\"");
  text_.append(what);
  text_.append("\",\"pid\":");
  append_json_number(text_, pid);
  text_.append(",\"tid\":");
  append_json_number(text_, tid);
  text_.append(",\"args\":{\"name\":");
  append_json_string(text_, name);
  text_.append("}}");
}

Result<void> ChromeEvents::finish(uint64_t last_time) {
  for (size_t cpu = 0; cpu < cpus_.size(); ++cpu) {
    if (!cpus_[cpu].open || last_time < cpus_[cpu].start) continue;
    std::string name;
    append_json_string(name, cpus_[cpu].name);
    complete_event(name, kCpuProcess, kCpuProcess + static_cast<int64_t>(cpu), cpus_[cpu].start, last_time);
  }
  // Track names: each thread by its comm, each CPU by its number.
  for (const ThreadName& thread : thread_names_) {
    metadata("thread_name", thread.pid, thread.tid, thread.comm);
    if (thread.pid == thread.tid) metadata("process_name", thread.pid, thread.tid, thread.comm);
  }
  if (!cpus_.empty()) metadata("process_name", kCpuProcess, kCpuProcess, "CPUs");
  for (size_t cpu = 0; cpu < cpus_.size(); ++cpu)
    metadata("thread_name", kCpuProcess, kCpuProcess + static_cast<int64_t>(cpu), fmt::format("CPU {}", cpu));
  text_.append("\n]}\n");
  if (!status_) return status_;
  bytes_put_ += text_.size();
  if (auto put = out_.put(text_); !put) return put;
  return out_.finish();
}

}  // namespace sonde::output
