#include "output/convert/chrome_trace.hpp"

#include <linux/perf_event.h>
#include <traceevent/event-parse.h>

#include "output/convert/perf_json.hpp"

namespace sonde::output {

namespace {

constexpr uint64_t kDefaultCover = 1000000;  // 1 ms: what a sample of a non-clock event covers

}  // namespace

ChromeTrace::ChromeTrace(session::Session& session, ScriptSymbols& symbols, OutputStream& out)
    : session_(session), symbols_(symbols), events_(out), locations_(session) {}

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

void ChromeTrace::close_frames(ThreadTrack& track, size_t keep, uint64_t time) {
  while (track.frames.size() > keep) {
    events_.duration('E', names_[track.frames.back()], track.pid, track.tid, time);
    track.frames.pop_back();
  }
}

void ChromeTrace::on_sample(const session::SampleEvent& sample) {
  if (!prepared_) prepare();
  if (sample.event_index >= event_names_.size()) return;
  const perfdata::Sample& s = sample.sample;
  ++samples_;
  if (s.has(PERF_SAMPLE_TIME) && s.time > last_time_) last_time_ = s.time;
  const perf_event_attr& attr = sample.event.attr;
  if (attr.type == PERF_TYPE_TRACEPOINT) {
    tep_event* format = formats_ ? formats_->find(attr.config) : nullptr;
    const uint8_t* raw = s.raw.data();
    bool has_cpu = s.has(PERF_SAMPLE_CPU);
    if (format != nullptr && has_cpu && std::string_view(format->name) == "sched_switch")
      events_.sched_switch(s.cpu, s.time, format, raw, s.raw.size());
    events_.tracepoint(event_names_[sample.event_index], sample.thread.pid, sample.thread.tid, s.time,
                       has_cpu ? static_cast<int64_t>(s.cpu) : -1, format, raw, s.raw.size());
    return;
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
    events_.duration('B', names_[frames[i]], track.pid, track.tid, s.time);
  }
  track.last_time = s.time;
}

Result<void> ChromeTrace::finish() {
  if (!prepared_) prepare();
  for (auto& [key, track] : threads_) {
    close_frames(track, 0, track.last_time + track.cover);
    events_.name_thread(track.pid, track.tid, track.comm);
  }
  return events_.finish(last_time_);
}

}  // namespace sonde::output
