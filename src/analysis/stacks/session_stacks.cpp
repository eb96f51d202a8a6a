#include "analysis/stacks/session_stacks.hpp"

#include <unordered_map>
#include <vector>

#include "base/progress.hpp"
#include "session/session.hpp"
#include "symbols/unwound_frames.hpp"
#include "unwind/dwarf_unwinder.hpp"

namespace sonde::analysis {

namespace {

// (DSO key, address) -> the range of a location's frames in StackSampleMaker::known_frames_:
// open addressing with linear probing, since every frame of every sample looks up here.
class LocationFrames {
 public:
  struct Range {
    uint32_t first = 0;
    uint32_t count = 0;  // 0: an empty slot (every location has at least one frame)
  };

  LocationFrames() : slots_(1 << 12) {}

  // The range of (dso_key, address), and whether it was just added (empty, to be filled).
  std::pair<Range*, bool> find_or_add(uint64_t dso_key, uint64_t address) {
    size_t mask = slots_.size() - 1;
    size_t at = slot_of(dso_key, address) & mask;
    for (; slots_[at].range.count != 0; at = (at + 1) & mask)
      if (slots_[at].dso_key == dso_key && slots_[at].address == address) return {&slots_[at].range, false};
    if ((used_ + 1) * 2 > slots_.size()) {
      grow();
      return find_or_add(dso_key, address);
    }
    ++used_;
    slots_[at].dso_key = dso_key;
    slots_[at].address = address;
    return {&slots_[at].range, true};
  }

 private:
  struct Slot {
    uint64_t dso_key = 0;
    uint64_t address = 0;
    Range range;
  };

  static size_t slot_of(uint64_t dso_key, uint64_t address) {
    uint64_t key = address ^ (dso_key * 0x9e3779b97f4a7c15ull);
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return static_cast<size_t>(key);
  }

  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.range.count == 0) continue;
      size_t at = slot_of(slot.dso_key, slot.address) & mask;
      while (slots_[at].range.count != 0) at = (at + 1) & mask;
      slots_[at] = slot;
    }
  }

  std::vector<Slot> slots_;
  size_t used_ = 0;
};

class StackSampleMaker : public session::SessionVisitor {
 public:
  StackSampleMaker(symbols::Symbolizer& symbolizer, EventFilter& filter, const StackSampleSink& sink,
                   Diagnostics& diagnostics)
      : symbolizer_(symbolizer), filter_(filter), sink_(sink), diagnostics_(diagnostics) {}

  void on_sample(const session::SampleEvent& event) override {
    if (event.event_index >= names_.size()) names_.resize(event.event_index + 1);
    std::string& name = names_[event.event_index];
    if (name.empty()) name = session::event_name(event.event);
    std::string filter_note;
    bool accepted = filter_.accept(name, &filter_note);
    if (!filter_note.empty()) diagnostics_.note(filter_note);
    if (!accepted) return;

    frames_.clear();
    const perfdata::Sample& sample = event.sample;
    bool has_stack = sample.has(PERF_SAMPLE_CALLCHAIN) || sample.has(PERF_SAMPLE_STACK_USER);
    if (has_stack) {
      // perf names the frames of a DWARF unwind by their inline chains (perf script prints one
      // line per inline frame).
      for (size_t i = 0; i < event.callchain.size(); ++i)
        append_frames(event.callchain[i], i >= event.unwound_from);
    }
    StackSample out;
    out.comm = event.thread.comm;
    out.pid = -1;  // perf script prints the tid alone by default, and folding follows its text
    out.tid = event.thread.tid;
    out.event = name;
    out.period = sample.has(PERF_SAMPLE_PERIOD) && sample.period ? sample.period : 1;
    out.weight = sample.weight;
    out.time_ns = sample.time;
    out.frames = frames_;
    sink_(out);
  }

 private:
  StackFrame frame(const session::Location& location) {
    StackFrame f;
    f.ip = location.map != nullptr ? location.dso_address : location.ip;  // perf script's map_ip
    f.symbol = "[unknown]";
    f.dso = "[unknown]";
    if (location.dso == nullptr) return f;
    f.dso = location.dso->long_name;
    if (const symbols::Symbol* symbol = symbolizer_.find(*location.dso, location.dso_address)) {
      f.symbol = symbol->name;
      f.symoff = symbolizer_.elf_address(*location.dso, location.dso_address) - symbol->start;
      f.has_symoff = true;
    }
    return f;
  }

  // Appends the frames of one callchain entry: one, or an unwound frame's inline chain. Each
  // (DSO, address) is symbolized and named once; its frames are kept with their ids.
  void append_frames(const session::Location& location, bool unwound) {
    uint64_t dso_key = location.dso != nullptr ? uint64_t{location.dso->id} + 1 : 0;
    uint64_t address =
        location.dso != nullptr || location.map != nullptr ? location.dso_address : location.ip;
    auto [range, fresh] = known_.find_or_add(dso_key << 1 | unwound, address);
    if (fresh) {
      size_t first = known_frames_.size();
      if (!unwound || !append_unwound(location, known_frames_)) known_frames_.push_back(frame(location));
      for (size_t i = first; i < known_frames_.size(); ++i)
        known_frames_[i].id = static_cast<uint32_t>(i + 1);
      range->first = static_cast<uint32_t>(first);
      range->count = static_cast<uint32_t>(known_frames_.size() - first);
    }
    frames_.insert(frames_.end(), known_frames_.begin() + range->first,
                   known_frames_.begin() + range->first + range->count);
  }

  // Appends an unwound frame's inline chain to `out`; false when it has none (no symbol or no
  // DWARF).
  bool append_unwound(const session::Location& location, std::vector<StackFrame>& out) {
    if (location.dso == nullptr) return false;
    auto [it, fresh] = unwound_[location.dso->id].try_emplace(location.dso_address);
    if (fresh) it->second = symbols::unwound_frames(symbolizer_, *location.dso, location.dso_address);
    if (it->second.empty()) return false;
    StackFrame holder = frame(location);
    for (const symbols::UnwoundFrame& unwound : it->second) {
      StackFrame f = holder;
      f.symbol = unwound.function;
      if (unwound.inlined) f.dso = "inlined";  // perf script's " (inlined)" stands where the DSO would
      out.push_back(f);
    }
    return true;
  }

  symbols::Symbolizer& symbolizer_;
  // Their views point into the symbolizer's tables, the session's Dsos and unwound_, all kept
  // for the whole replay.
  std::vector<StackFrame> known_frames_;
  LocationFrames known_;
  std::unordered_map<uint32_t, std::unordered_map<uint64_t, std::vector<symbols::UnwoundFrame>>> unwound_;
  EventFilter& filter_;
  const StackSampleSink& sink_;
  Diagnostics& diagnostics_;
  std::vector<std::string> names_;
  std::vector<StackFrame> frames_;
};

class SampleTimes : public session::SessionVisitor {
 public:
  explicit SampleTimes(const std::function<void(uint64_t, std::string_view)>& each) : each_(each) {}
  void on_sample(const session::SampleEvent& event) override { each_(event.sample.time, event.thread.comm); }

 private:
  const std::function<void(uint64_t, std::string_view)>& each_;
};

}  // namespace

Result<void> for_each_sample_time(const std::string& path,
                                  const std::function<void(uint64_t time_ns, std::string_view comm)>& each,
                                  Diagnostics& diagnostics) {
  auto session = session::Session::open(path, diagnostics);
  if (!session) return tl::unexpected(session.error());
  SampleTimes times(each);
  return session->process(times);
}

Result<void> for_each_session_stack(const std::string& path, const symbols::SymbolizerOptions& options,
                                    EventFilter& filter, const StackSampleSink& sink,
                                    Diagnostics& diagnostics) {
  auto session = session::Session::open(path, diagnostics);
  if (!session) return tl::unexpected(session.error());
  symbols::Symbolizer symbolizer(options);
  unwind::DwarfUnwinder unwinder([&](const session::Dso& dso) { return symbolizer.elf_path(dso); });
  session->set_unwinder(&unwinder);
  StackSampleMaker maker(symbolizer, filter, sink, diagnostics);
  if (!stdout_is_terminal()) session->show_progress("sonde: reading " + path);
  return session->process(maker);
}

}  // namespace sonde::analysis
