#include "output/convert/firefox_profile.hpp"

#include <linux/perf_event.h>

#include <unordered_map>

#include "output/convert/perf_json.hpp"

namespace sonde::output {

namespace {

constexpr int kUserCategory = 0;
constexpr int kKernelCategory = 1;

// Milliseconds with microsecond digits, the Gecko format's unit for times.
void append_milliseconds(std::string& out, uint64_t nanoseconds) {
  append_json_number(out, nanoseconds / 1'000'000);
  uint64_t micros = nanoseconds / 1000 % 1000;
  if (micros == 0) return;
  char digits[5] = {'.', static_cast<char>('0' + micros / 100), static_cast<char>('0' + micros / 10 % 10),
                    static_cast<char>('0' + micros % 10), 0};
  out += digits;
}

// The sampling interval the profiler draws a sample's width with: the first event's period or
// frequency, in milliseconds; 1 when unknown.
double interval_milliseconds(session::Session& session) {
  const auto& events = session.reader().attrs().events();
  if (events.empty()) return 1;
  const perf_event_attr& attr = events.front().attr;
  if (attr.freq && attr.sample_freq > 0) return 1000.0 / static_cast<double>(attr.sample_freq);
  if (!attr.freq && attr.sample_period > 0 &&
      counts_nanoseconds(events.front(), session::event_name(events.front())))
    return static_cast<double>(attr.sample_period) / 1e6;
  return 1;
}

}  // namespace

FirefoxProfile::FirefoxProfile(session::Session& session, ScriptSymbols& symbols, OutputStream& out)
    : session_(session), symbols_(symbols), out_(out), locations_(session) {}

void FirefoxProfile::on_sample(const session::SampleEvent& sample) {
  // A pipe's events arrive as records ahead of its samples: named at the first sample.
  if (event_names_.empty())
    for (const auto& event : session_.reader().attrs().events())
      event_names_.push_back(session::event_name(event));
  const perfdata::Sample& s = sample.sample;
  ++samples_;
  bool inserted;
  uint32_t thread_id = thread_ids_.intern(
      {sample.event_index, static_cast<uint64_t>(static_cast<uint32_t>(sample.thread.tid))}, inserted);
  if (inserted) {
    Thread thread;
    thread.pid = sample.thread.pid;
    thread.tid = sample.thread.tid;
    thread.event = sample.event_index;
    threads_.push_back(std::move(thread));
  }
  Thread& thread = threads_[thread_id];
  // A thread named after exec or prctl keeps its latest name, as perf's script does.
  if (thread.name != sample.thread.comm) thread.name = sample.thread.comm;
  scratch_.clear();
  locations_.append_stack(sample, scratch_);
  thread.stacks.push_back(stacks_.intern(scratch_, inserted));
  uint64_t time = s.has(PERF_SAMPLE_TIME) ? s.time : 0;
  thread.times.push_back(time);
  if (time < first_time_) first_time_ = time;
}

Result<void> FirefoxProfile::drain(std::string& out) {
  bytes_ += out.size();
  auto written = out_.write(out.data(), out.size());
  out.clear();
  return written;
}

Result<void> FirefoxProfile::finish() {
  // Every location's functions as frames of the whole file, innermost first.
  std::vector<Frame> frames;
  std::vector<std::vector<uint32_t>> location_frames;
  std::unordered_map<std::string, uint32_t> frame_ids;
  std::string key;
  for (const ProfileLocations::Location& location : locations_.locations()) {
    auto& ids = location_frames.emplace_back();
    const std::string& dso = location.dso != nullptr ? location.dso->long_name : std::string("[unknown]");
    for (ProfileLocations::Frame& named : locations_.named_frames(location, symbols_)) {
      key = named.name + " (in " + dso + ")";
      key.push_back('\0');
      key += std::to_string(named.line);
      auto [it, fresh] = frame_ids.try_emplace(key, static_cast<uint32_t>(frames.size()));
      ids.push_back(it->second);
      if (fresh)
        frames.push_back({named.name + " (in " + dso + ")", named.line,
                          location.dso != nullptr && location.dso->is_kernel()});
    }
  }

  std::string out;
  out.reserve(kJsonFlushSize + 64 * 1024);
  const auto& features = session_.reader().features();
  std::string product = "Linux";
  if (features.os_release) product += " " + *features.os_release;
  if (features.arch) product += " " + *features.arch;
  out += "{\"meta\":{\"interval\":";
  out += fmt::format("{:.6g}", interval_milliseconds(session_));
  out += ",\"processType\":0,\"product\":";
  append_json_string(out, product);
  // The start: wall-clock milliseconds when the file has clock data (-k), else the first
  // sample's stamp in milliseconds, as perf's script gives it.
  uint64_t first = first_time_ == UINT64_MAX ? 0 : first_time_;
  uint64_t start = first;
  if (features.clock_data) start = first + features.clock_data->tod_ns - features.clock_data->clockid_ns;
  out += ",\"stackwalk\":1,\"debug\":0,\"gcpoison\":0,\"asyncstack\":1,\"startTime\":";
  append_milliseconds(out, start);
  out +=
      ",\"shutdownTime\":null,\"version\":24,\"presymbolicated\":true,\"categories\":["
      "{\"name\":\"User\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]},"
      "{\"name\":\"Kernel\",\"color\":\"orange\",\"subcategories\":[\"Other\"]}],\"markerSchema\":[]},"
      "\"libs\":[],\"threads\":[";
  for (size_t t = 0; t < threads_.size(); ++t) {
    if (t != 0) out += ',';
    if (auto written = write_thread(threads_[t], location_frames, frames, out); !written) return written;
  }
  out += "\n],\"processes\":[],\"pausedRanges\":[]}\n";
  if (auto last = drain(out); !last) return last;
  return out_.flush();
}

Result<void> FirefoxProfile::write_thread(const Thread& thread,
                                          const std::vector<std::vector<uint32_t>>& location_frames,
                                          const std::vector<Frame>& frames, std::string& out) {
  // The thread's own tables: its frames (each with its string) in the order its samples first
  // reach them, and its stacks as (prefix, frame) pairs from the root.
  std::vector<uint32_t> thread_frame(frames.size(), UINT32_MAX);
  std::vector<uint32_t> frame_order;               // file frame ids, by thread frame id
  analysis::KeyIndex<2> stack_ids;                 // prefix + 1 (0 for the root), thread frame
  std::unordered_map<uint32_t, uint32_t> leaf_of;  // stacks_ id -> thread stack id
  std::vector<uint32_t> sample_stacks;
  sample_stacks.reserve(thread.stacks.size());
  for (uint32_t stack : thread.stacks) {
    auto [it, fresh] = leaf_of.try_emplace(stack, UINT32_MAX);
    if (fresh) {
      uint64_t prefix = 0;  // none
      auto locations = stacks_.sequence(stack);
      for (size_t l = locations.size(); l-- > 0;) {
        const auto& inner_first = location_frames[locations[l]];
        for (size_t f = inner_first.size(); f-- > 0;) {
          uint32_t file_frame = inner_first[f];
          if (thread_frame[file_frame] == UINT32_MAX) {
            thread_frame[file_frame] = static_cast<uint32_t>(frame_order.size());
            frame_order.push_back(file_frame);
          }
          prefix = uint64_t(stack_ids.intern({prefix, thread_frame[file_frame]})) + 1;
        }
      }
      it->second = prefix == 0 ? UINT32_MAX : static_cast<uint32_t>(prefix - 1);
    }
    sample_stacks.push_back(it->second);
  }

  out += "\n{\"name\":";
  append_json_string(
      out, event_names_.size() > 1 ? thread.name + " (" + event_names_[thread.event] + ")" : thread.name);
  out += ",\"processType\":\"default\",\"pid\":";
  append_json_number(out, thread.pid);
  out += ",\"tid\":";
  append_json_number(out, thread.tid);
  out +=
      ",\"registerTime\":0,\"unregisterTime\":null,\"markers\":{\"schema\":{\"name\":0,\"startTime\":1,"
      "\"endTime\":2,\"phase\":3,\"category\":4,\"data\":5},\"data\":[]},";
  out += "\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"responsiveness\":2},\"data\":[";
  uint64_t first = first_time_ == UINT64_MAX ? 0 : first_time_;
  Result<void> written;
  for (size_t i = 0; i < thread.times.size(); ++i) {
    out += i == 0 ? "\n[" : ",\n[";
    if (sample_stacks[i] == UINT32_MAX)
      out += "null";
    else
      append_json_number(out, sample_stacks[i]);
    out += ',';
    append_milliseconds(out, thread.times[i] - first);
    out += ",0]";
    if (out.size() >= kJsonFlushSize && written) written = drain(out);
  }
  out +=
      "]},\"frameTable\":{\"schema\":{\"location\":0,\"relevantForJS\":1,\"innerWindowID\":2,"
      "\"implementation\":3,\"optimizations\":4,\"line\":5,\"column\":6,\"category\":7,\"subcategory\":8},"
      "\"data\":[";
  for (size_t f = 0; f < frame_order.size(); ++f) {
    const Frame& frame = frames[frame_order[f]];
    out += f == 0 ? "\n[" : ",\n[";
    append_json_number(out, f);  // the frame's string: strings are listed in frame order
    out += ",false,0,null,null,";
    if (frame.line > 0)
      append_json_number(out, frame.line);
    else
      out += "null";
    out += ",null,";
    append_json_number(out, frame.kernel ? kKernelCategory : kUserCategory);
    out += ",0]";
    if (out.size() >= kJsonFlushSize && written) written = drain(out);
  }
  out += "]},\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[";
  for (uint32_t s = 0; s < stack_ids.size(); ++s) {
    const auto& pair = stack_ids.key(s);
    out += s == 0 ? "\n[" : ",\n[";
    if (pair[0] == 0)
      out += "null";
    else
      append_json_number(out, pair[0] - 1);
    out += ',';
    append_json_number(out, pair[1]);
    out += ']';
    if (out.size() >= kJsonFlushSize && written) written = drain(out);
  }
  out += "]},\"stringTable\":[";
  for (size_t f = 0; f < frame_order.size(); ++f) {
    out += f == 0 ? "\n" : ",\n";
    append_json_string(out, frames[frame_order[f]].location);
  }
  out += "]}";
  if (written && out.size() >= kJsonFlushSize) written = drain(out);
  return written;
}

}  // namespace sonde::output
