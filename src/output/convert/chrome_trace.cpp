#include "output/convert/chrome_trace.hpp"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <traceevent/event-parse.h>

#include <algorithm>

#include "output/convert/perf_json.hpp"
#include "output/convert/tracepoint_values.hpp"

namespace sonde::output {

namespace {

constexpr size_t kFlushSize = 1 << 20;
// Per-CPU tracks sit in a process of their own, far from real pids.
constexpr int64_t kCpuProcess = int64_t{1} << 30;
constexpr uint64_t kDefaultCover = 1000000;  // 1 ms: what a sample of a non-clock event covers

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

ChromeTrace::ChromeTrace(session::Session& session, ScriptSymbols& symbols, OutputStream& out)
    : session_(session), symbols_(symbols), out_(out), locations_(session) {
  text_.reserve(kFlushSize + 64 * 1024);
  text_.append("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":\"sonde\"},\"traceEvents\":[");
}

// A pipe's events arrive ahead of its samples: worked out at the first sample.
void ChromeTrace::prepare() {
  prepared_ = true;
  if (Bytes blob = session_.reader().tracing_data(); !blob.empty()) {
    auto formats = session::TracepointFormats::parse(blob);
    if (formats) formats_ = std::make_unique<session::TracepointFormats>(std::move(*formats));
  }
  const auto& events = session_.reader().attrs().events();
  for (size_t i = 0; i < events.size(); ++i) {
    event_names_.push_back(session::event_name(events[i]));
    event_nanoseconds_.push_back(counts_nanoseconds(events[i], event_names_.back()));
    // The first sampling event draws the flame charts; a clock event is preferred.
    if (events[i].attr.type == PERF_TYPE_TRACEPOINT) continue;
    if (flame_event_ == SIZE_MAX || (event_nanoseconds_.back() && !event_nanoseconds_[flame_event_]))
      flame_event_ = i;
  }
}

void ChromeTrace::begin_event() {
  if (!first_event_) text_.push_back(',');
  first_event_ = false;
  text_.push_back('\n');
}

void ChromeTrace::drain() {
  if (text_.size() < kFlushSize || !status_) return;
  bytes_put_ += text_.size();
  status_ = out_.put(text_);
  text_.reserve(kFlushSize + 64 * 1024);
}

void ChromeTrace::complete_event(std::string_view name_json, int64_t pid, int64_t tid, uint64_t start,
                                 uint64_t end) {
  begin_event();
  text_.append("{\"ph\":\"X\",\"name\":");
  text_.append(name_json);
  text_.append(",\"pid\":");
  append_json_number(text_, pid);
  text_.append(",\"tid\":");
  append_json_number(text_, tid);
  text_.append(",\"ts\":");
  append_micros(text_, start);
  text_.append(",\"dur\":");
  append_micros(text_, end - start);
  text_.push_back('}');
}

const std::vector<uint32_t>& ChromeTrace::stack_frames(const session::SampleEvent& sample) {
  scratch_.clear();
  locations_.append_stack(sample, scratch_);
  bool inserted;
  uint32_t id = stacks_.intern(scratch_, inserted);
  if (!inserted) return stack_frames_[id];
  std::vector<uint32_t> root_first;
  for (auto it = scratch_.rbegin(); it != scratch_.rend(); ++it) {
    uint32_t location = *it;
    const auto& known = locations_.locations();
    while (location_frames_.size() < known.size()) {
      const ProfileLocations::Location& entry = known[location_frames_.size()];
      std::vector<uint32_t> names;
      auto frames = locations_.named_frames(entry, symbols_);
      for (const ProfileLocations::Frame& frame : frames) {
        auto [found, fresh] = name_ids_.try_emplace(frame.name, static_cast<uint32_t>(names_.size()));
        if (fresh) {
          std::string quoted;
          append_json_string(quoted, frame.name);
          names_.push_back(std::move(quoted));
        }
        names.push_back(found->second);
      }
      location_frames_.push_back(std::move(names));
    }
    // Innermost first in a location: the holder goes on the stack before what is inlined into it.
    const auto& names = location_frames_[location];
    for (auto name = names.rbegin(); name != names.rend(); ++name) root_first.push_back(*name);
  }
  stack_frames_.push_back(std::move(root_first));
  return stack_frames_.back();
}

void ChromeTrace::duration_event(char phase, uint32_t name, const ThreadTrack& track, uint64_t time) {
  begin_event();
  text_.append("{\"ph\":\"");
  text_.push_back(phase);
  text_.append("\",\"name\":");
  text_.append(names_[name]);
  text_.append(",\"pid\":");
  append_json_number(text_, track.pid);
  text_.append(",\"tid\":");
  append_json_number(text_, track.tid);
  text_.append(",\"ts\":");
  append_micros(text_, time);
  text_.push_back('}');
}

void ChromeTrace::close_frames(ThreadTrack& track, size_t keep, uint64_t time) {
  while (track.frames.size() > keep) {
    duration_event('E', track.frames.back(), track, time);
    track.frames.pop_back();
  }
}

void ChromeTrace::tracepoint_event(const session::SampleEvent& sample, tep_event* format) {
  const perfdata::Sample& s = sample.sample;
  begin_event();
  text_.append("{\"ph\":\"i\",\"s\":\"t\",\"name\":");
  append_json_string(text_, event_names_[sample.event_index]);
  text_.append(",\"pid\":");
  append_json_number(text_, sample.thread.pid);
  text_.append(",\"tid\":");
  append_json_number(text_, sample.thread.tid);
  text_.append(",\"ts\":");
  append_micros(text_, s.time);
  text_.append(",\"args\":{");
  bool first = true;
  const uint8_t* raw = s.raw.data();
  size_t size = s.raw.size();
  if (s.has(PERF_SAMPLE_CPU)) {
    text_.append("\"cpu\":");
    append_json_number(text_, s.cpu);
    first = false;
  }
  for (tep_format_field* field = format != nullptr ? format->format.fields : nullptr; field != nullptr;
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
}

void ChromeTrace::sched_switch(const session::SampleEvent& sample, tep_event* format) {
  const perfdata::Sample& s = sample.sample;
  if (!s.has(PERF_SAMPLE_CPU) || format == nullptr) return;
  const uint8_t* raw = s.raw.data();
  size_t size = s.raw.size();
  tep_format_field* next_comm = tep_find_field(format, "next_comm");
  tep_format_field* next_pid = tep_find_field(format, "next_pid");
  if (next_comm == nullptr || next_pid == nullptr) return;
  if (s.cpu >= cpus_.size()) cpus_.resize(s.cpu + 1);
  CpuTrack& cpu = cpus_[s.cpu];
  if (cpu.open && s.time >= cpu.start) {
    std::string name;
    append_json_string(name, cpu.name);
    complete_event(name, kCpuProcess, kCpuProcess + s.cpu, cpu.start, s.time);
  }
  auto pid = static_cast<int32_t>(field_number(raw, size, static_cast<size_t>(next_pid->offset),
                                               static_cast<size_t>(next_pid->size), true));
  std::string_view comm = field_string(raw, size, static_cast<size_t>(next_comm->offset));
  comm = comm.substr(0, std::min<size_t>(comm.size(), static_cast<size_t>(next_comm->size)));
  // The idle task leaves the CPU's track empty.
  cpu.open = pid != 0;
  cpu.start = s.time;
  cpu.name = fmt::format("{} {}", comm, pid);
}

void ChromeTrace::on_sample(const session::SampleEvent& sample) {
  if (!prepared_) prepare();
  if (!status_ || sample.event_index >= event_names_.size()) return;
  const perfdata::Sample& s = sample.sample;
  ++samples_;
  if (s.has(PERF_SAMPLE_TIME) && s.time > last_time_) last_time_ = s.time;
  const perf_event_attr& attr = sample.event.attr;
  if (attr.type == PERF_TYPE_TRACEPOINT) {
    tep_event* format = formats_ ? formats_->find(attr.config) : nullptr;
    if (format != nullptr && std::string_view(format->name) == "sched_switch") sched_switch(sample, format);
    tracepoint_event(sample, format);
    return drain();
  }
  if (sample.event_index != flame_event_ || !s.has(PERF_SAMPLE_TIME)) return;
  uint64_t key = static_cast<uint64_t>(static_cast<uint32_t>(sample.thread.pid)) << 32 |
                 static_cast<uint32_t>(sample.thread.tid);
  auto [it, fresh] = threads_.try_emplace(key);
  ThreadTrack& track = it->second;
  if (fresh) {
    track.pid = sample.thread.pid;
    track.tid = sample.thread.tid;
  }
  track.comm = sample.thread.comm;
  uint64_t period = s.has(PERF_SAMPLE_PERIOD) ? s.period : sample.event.attr.sample_period;
  track.cover = event_nanoseconds_[sample.event_index] && period > 0 ? period : kDefaultCover;
  // Not sampled for more than two periods: what was open ended a period after its last sample.
  if (!track.frames.empty() && (s.time < track.last_time || s.time - track.last_time > 2 * track.cover))
    close_frames(track, 0, track.last_time + track.cover);
  const std::vector<uint32_t>& frames = stack_frames(sample);
  size_t common = 0;
  while (common < frames.size() && common < track.frames.size() && frames[common] == track.frames[common])
    ++common;
  close_frames(track, common, s.time);
  for (size_t i = common; i < frames.size(); ++i) {
    track.frames.push_back(frames[i]);
    duration_event('B', frames[i], track, s.time);
  }
  track.last_time = s.time;
  drain();
}

Result<void> ChromeTrace::finish() {
  if (!prepared_) prepare();
  for (auto& [key, track] : threads_) close_frames(track, 0, track.last_time + track.cover);
  for (size_t cpu = 0; cpu < cpus_.size(); ++cpu) {
    if (!cpus_[cpu].open || last_time_ < cpus_[cpu].start) continue;
    std::string name;
    append_json_string(name, cpus_[cpu].name);
    complete_event(name, kCpuProcess, kCpuProcess + static_cast<int64_t>(cpu), cpus_[cpu].start, last_time_);
  }
  // Track names: each thread by its comm, each CPU by its number.
  auto metadata = [&](std::string_view what, int64_t pid, int64_t tid, std::string_view name) {
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
  };
  for (const auto& [key, track] : threads_) {
    metadata("thread_name", track.pid, track.tid, track.comm);
    if (track.pid == track.tid) metadata("process_name", track.pid, track.tid, track.comm);
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
