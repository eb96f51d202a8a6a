#include "output/convert/speedscope_profile.hpp"

#include <linux/perf_event.h>

#include <algorithm>

#include "output/convert/perf_json.hpp"

namespace sonde::output {

namespace {}  // namespace

SpeedscopeProfile::SpeedscopeProfile(session::Session& session, ScriptSymbols& symbols, OutputStream& out,
                                     std::string name)
    : session_(session), symbols_(symbols), out_(out), name_(std::move(name)), locations_(session) {
  for (const auto& event : session.reader().attrs().events()) {
    event_names_.push_back(session::event_name(event));
    event_nanoseconds_.push_back(counts_nanoseconds(event, event_names_.back()));
  }
}

void SpeedscopeProfile::on_sample(const session::SampleEvent& sample) {
  const perfdata::Sample& s = sample.sample;
  ++samples_;
  bool inserted;
  uint32_t track_id = track_ids_.intern(
      {sample.event_index, static_cast<uint64_t>(static_cast<uint32_t>(sample.thread.tid))}, inserted);
  if (inserted) {
    Track track;
    track.name = sample.thread.comm + " " + std::to_string(sample.thread.tid);
    if (event_names_.size() > 1) track.name += " (" + event_names_[sample.event_index] + ")";
    track.nanoseconds = event_nanoseconds_[sample.event_index];
    tracks_.push_back(std::move(track));
  }
  Track& track = tracks_[track_id];
  scratch_.clear();
  locations_.append_stack(sample, scratch_);
  uint32_t stack = stacks_.intern(scratch_, inserted);
  uint64_t weight = s.has(PERF_SAMPLE_PERIOD) ? s.period : sample.event.attr.sample_period;
  if (!track.nanoseconds) weight = 1;  // a count of samples: the periods of a counter vary
  track.total += weight;
  if (!track.stacks.empty() && track.stacks.back() == stack) {
    track.weights.back() += weight;
    return;
  }
  track.stacks.push_back(stack);
  track.weights.push_back(weight);
}

Result<void> SpeedscopeProfile::finish() {
  // Frames: each location's functions, interned by (name, file, line).
  std::vector<std::vector<uint32_t>> location_frames;  // innermost first
  std::unordered_map<std::string, uint32_t> frame_ids;
  std::string frames_json, key;
  for (const ProfileLocations::Location& location : locations_.locations()) {
    auto& ids = location_frames.emplace_back();
    auto frames = locations_.named_frames(location, symbols_);
    for (const ProfileLocations::Frame& frame : frames) {
      key = frame.name;
      key.push_back('\0');
      key += frame.file;
      key.push_back('\0');
      key += std::to_string(frame.line);
      auto [it, fresh] = frame_ids.try_emplace(key, static_cast<uint32_t>(frame_ids.size()));
      ids.push_back(it->second);
      if (!fresh) continue;
      frames_json += it->second == 0 ? "\n{\"name\":" : ",\n{\"name\":";
      append_json_string(frames_json, frame.name);
      if (!frame.file.empty()) {
        frames_json += ",\"file\":";
        append_json_string(frames_json, frame.file);
        if (frame.line > 0) {
          frames_json += ",\"line\":";
          append_json_number(frames_json, frame.line);
        }
      }
      frames_json += '}';
    }
  }

  // Written out in ~1 MB pieces: a million samples' stacks are tens of megabytes of text.
  std::string out;
  out.reserve(kJsonFlushSize + 64 * 1024);
  auto drain = [&]() -> Result<void> {
    bytes_ += out.size();
    auto written = out_.write(out.data(), out.size());
    out.clear();
    return written;
  };
  out += "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"sonde\",";
  out += "\"name\":";
  append_json_string(out, name_);
  // The busiest track opens first.
  size_t active = 0;
  for (size_t i = 1; i < tracks_.size(); ++i)
    if (tracks_[i].total > tracks_[active].total) active = i;
  out += ",\"activeProfileIndex\":";
  append_json_number(out, active);
  out += ",\"profiles\":[";
  std::vector<uint32_t> root_first;
  for (size_t t = 0; t < tracks_.size(); ++t) {
    const Track& track = tracks_[t];
    out += t == 0 ? "\n{\"type\":\"sampled\",\"name\":" : ",\n{\"type\":\"sampled\",\"name\":";
    append_json_string(out, track.name);
    out += track.nanoseconds ? ",\"unit\":\"nanoseconds\"" : ",\"unit\":\"none\"";
    out += ",\"startValue\":0,\"endValue\":";
    append_json_number(out, track.total);
    // speedscope lists a stack from its root: the callchain reversed, and each location's
    // holder before the functions inlined into it. Neighbours that name the same frames (other
    // addresses in the same functions) become one sample.
    out += ",\"samples\":[";
    std::string weights = "],\"weights\":[";
    std::vector<uint32_t> previous;
    uint64_t pending = 0;
    bool have_pending = false, first = true;
    Result<void> written;
    auto flush = [&] {
      if (!have_pending) return;
      if (!first) out += ',', weights += ',';
      first = false;
      out += '[';
      for (size_t f = 0; f < previous.size(); ++f) {
        if (f != 0) out += ',';
        append_json_number(out, previous[f]);
      }
      out += ']';
      append_json_number(weights, pending);
      pending = 0;
      have_pending = false;
      if (out.size() >= kJsonFlushSize && written) written = drain();
    };
    for (size_t i = 0; i < track.stacks.size(); ++i) {
      root_first.clear();
      for (uint32_t location : stacks_.sequence(track.stacks[i]))
        for (uint32_t frame : location_frames[location]) root_first.push_back(frame);
      std::reverse(root_first.begin(), root_first.end());
      if (root_first != previous) {
        flush();
        previous.swap(root_first);
      }
      pending += track.weights[i];
      have_pending = true;
    }
    flush();
    if (!written) return written;
    out += weights;
    out += "]}";
  }
  out += "\n],\"shared\":{\"frames\":[";
  out += frames_json;
  out += "\n]}}\n";
  if (auto last = drain(); !last) return last;
  return out_.flush();
}

}  // namespace sonde::output
