#include "analysis/session_stacks.hpp"

#include <unordered_map>
#include <vector>

#include "session/session.hpp"
#include "symbols/unwound_frames.hpp"
#include "unwind/dwarf_unwinder.hpp"

namespace sonde::analysis {

namespace {

class StackSampleMaker : public session::SessionVisitor {
 public:
  StackSampleMaker(symbols::Symbolizer& symbolizer, EventFilter& filter, const StackSampleSink& sink,
                   const NoteSink& note)
      : symbolizer_(symbolizer), filter_(filter), sink_(sink), note_(note) {}

  void on_sample(const session::SampleEvent& event) override {
    if (event.event_index >= names_.size()) names_.resize(event.event_index + 1);
    std::string& name = names_[event.event_index];
    if (name.empty()) name = session::event_name(event.event);
    std::string filter_note;
    bool accepted = filter_.accept(name, &filter_note);
    if (!filter_note.empty()) note_(filter_note);
    if (!accepted) return;

    frames_.clear();
    const perfdata::Sample& sample = event.sample;
    bool has_stack = sample.has(PERF_SAMPLE_CALLCHAIN) || sample.has(PERF_SAMPLE_STACK_USER);
    if (has_stack) {
      // The frames after the kernel's chain come from the DWARF unwind: perf names those by
      // their inline chains (perf script prints one line per inline frame).
      size_t chain_end = event.callchain.size();
      if (sample.has(PERF_SAMPLE_STACK_USER) && sample.regs_user.abi != 0) {
        size_t chain_entries = 0;
        for (size_t i = 0; i < sample.callchain.size(); ++i) chain_entries += sample.callchain[i] < PERF_CONTEXT_MAX;
        chain_end = std::min(chain_entries, event.callchain.size());
      }
      for (size_t i = 0; i < event.callchain.size(); ++i) {
        if (i < chain_end || !append_unwound(event.callchain[i])) frames_.push_back(frame(event.callchain[i]));
      }
    }
    StackSample out;
    out.comm = event.thread.comm;
    out.pid = -1;  // perf script prints the tid alone by default, and folding follows its text
    out.tid = event.thread.tid;
    out.event = name;
    out.period = sample.has(PERF_SAMPLE_PERIOD) && sample.period ? sample.period : 1;
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

  // Appends an unwound frame's inline chain; false when it has none (no symbol or no DWARF).
  bool append_unwound(const session::Location& location) {
    if (location.dso == nullptr) return false;
    auto [it, fresh] = unwound_[location.dso->id].try_emplace(location.dso_address);
    if (fresh) it->second = symbols::unwound_frames(symbolizer_, *location.dso, location.dso_address);
    if (it->second.empty()) return false;
    StackFrame holder = frame(location);
    for (const symbols::UnwoundFrame& unwound : it->second) {
      StackFrame f = holder;
      f.symbol = unwound.function;
      if (unwound.inlined) f.dso = "inlined";  // perf script's " (inlined)" stands where the DSO would
      frames_.push_back(f);
    }
    return true;
  }

  symbols::Symbolizer& symbolizer_;
  std::unordered_map<uint32_t, std::unordered_map<uint64_t, std::vector<symbols::UnwoundFrame>>> unwound_;
  EventFilter& filter_;
  const StackSampleSink& sink_;
  const NoteSink& note_;
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
                                  const std::function<void(uint64_t time_ns, std::string_view comm)>& each) {
  auto session = session::Session::open(path);
  if (!session) return tl::unexpected(session.error());
  SampleTimes times(each);
  return session->process(times);
}

Result<void> for_each_session_stack(const std::string& path, const symbols::SymbolizerOptions& options,
                                    EventFilter& filter, const StackSampleSink& sink, const NoteSink& note) {
  auto session = session::Session::open(path);
  if (!session) return tl::unexpected(session.error());
  symbols::Symbolizer symbolizer(options);
  unwind::DwarfUnwinder unwinder([&](const session::Dso& dso) { return symbolizer.elf_path(dso); });
  session->set_unwinder(&unwinder);
  StackSampleMaker maker(symbolizer, filter, sink, note);
  return session->process(maker);
}

}  // namespace sonde::analysis
