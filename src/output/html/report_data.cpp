#include "output/html/report_data.hpp"

#include <linux/perf_event.h>
#include <traceevent/event-parse.h>

#include <algorithm>
#include <unordered_map>

#include "output/convert/tracepoint_values.hpp"

namespace sonde::output {

namespace {

constexpr size_t kMaxEvents = 255;  // an event's index is a byte per sample
constexpr uint32_t kMaxHeatCpus = 4096;

}  // namespace

HtmlReportData::HtmlReportData(session::Session& session, ScriptSymbols& symbols)
    : session_(session), symbols_(symbols), locations_(session) {}

// A pipe's events and tracing data arrive as records ahead of its samples: read at the first.
void HtmlReportData::prepare() {
  prepared_ = true;
  for (const auto& event : session_.reader().attrs().events()) {
    HtmlReportEvent entry;
    entry.name = session::event_name(event);
    entry.nanoseconds = counts_nanoseconds(event, entry.name);
    tables_.events.push_back(std::move(entry));
    if (tables_.events.size() == kMaxEvents) break;
  }
  // sched_switch draws the CPUs' lanes: which tracepoint ids are it.
  Bytes blob = session_.reader().tracing_data();
  if (!blob.empty())
    if (auto formats = session::TracepointFormats::parse(blob))
      formats_ = std::make_unique<session::TracepointFormats>(std::move(*formats));
  for (size_t e = 0; e < tables_.events.size(); ++e) {
    const perf_event_attr& attr = session_.reader().attrs().events()[e].attr;
    tep_event* format = formats_ && attr.type == PERF_TYPE_TRACEPOINT ? formats_->find(attr.config) : nullptr;
    bool is_switch = format != nullptr && std::string_view(format->name) == "sched_switch" &&
                     (attr.sample_type & PERF_SAMPLE_CPU);
    sched_switch_formats_.push_back(is_switch ? format : nullptr);
  }
}

void HtmlCpuLanes::on_switch(uint32_t cpu, uint64_t time, const tep_event* format, const uint8_t* raw,
                             size_t size) {
  NextTask next;
  if (!read_next_task(*format, raw, size, next)) return;
  if (cpu >= kMaxHeatCpus) return;  // a damaged sample's CPU
  if (cpu >= cpus_.size()) cpus_.resize(cpu + 1);
  CpuTrack& track = cpus_[cpu];
  if (track.open && time >= track.start) slices_.push_back({track.start, time, cpu, track.pid, track.comm});
  track.pid = next.pid;
  track.comm = std::string(next.comm);
  track.open = track.pid != 0;  // the idle task leaves the lane empty
  track.start = time;
}

std::vector<HtmlCpuSlice> HtmlCpuLanes::finish(uint64_t last_time) {
  for (uint32_t cpu = 0; cpu < cpus_.size(); ++cpu)
    if (cpus_[cpu].open && last_time >= cpus_[cpu].start)
      slices_.push_back({cpus_[cpu].start, last_time, cpu, cpus_[cpu].pid, cpus_[cpu].comm});
  cpus_.clear();
  return std::move(slices_);
}

void HtmlReportData::on_sample(const session::SampleEvent& sample) {
  if (!prepared_) prepare();
  if (sample.event_index >= tables_.events.size()) return;
  const perfdata::Sample& s = sample.sample;
  bool inserted;
  uint32_t thread = thread_ids_.intern({static_cast<uint64_t>(static_cast<uint32_t>(sample.thread.pid)),
                                        static_cast<uint64_t>(static_cast<uint32_t>(sample.thread.tid))},
                                       inserted);
  if (inserted) tables_.threads.push_back({sample.thread.pid, sample.thread.tid, "", 0});
  HtmlReportThread& entry = tables_.threads[thread];
  if (entry.comm != sample.thread.comm) entry.comm = sample.thread.comm;  // the latest, after exec or prctl
  ++entry.samples;
  HtmlReportEvent& event = tables_.events[sample.event_index];
  ++event.samples;
  scratch_.clear();
  locations_.append_stack(sample, scratch_);
  location_stacks_.push_back(stacks_.intern(scratch_, inserted));
  tables_.times.push_back(s.has(PERF_SAMPLE_TIME) ? s.time : 0);
  tables_.sample_threads.push_back(thread);
  tables_.sample_events.push_back(static_cast<uint8_t>(sample.event_index));
  // Weighed by period, as report weighs every event (a sample of a frequency-mode event without
  // its period counts 1).
  uint64_t period = s.has(PERF_SAMPLE_PERIOD) ? s.period
                    : sample.event.attr.freq  ? 1
                                              : sample.event.attr.sample_period;
  if (s.has(PERF_SAMPLE_TIME) && s.time > last_time_) last_time_ = s.time;
  if (const tep_event* format = sched_switch_formats_[sample.event_index])
    cpu_lanes_.on_switch(s.cpu, s.time, format, s.raw.data(), s.raw.size());
  double weight = static_cast<double>(period > 0 ? period : 1);
  tables_.weights.push_back(weight);
  if (!scratch_.empty()) leaf_weights_[uint64_t{sample.event_index} << 32 | scratch_.front()] += weight;
}

void HtmlReportData::find_hot_functions() {
  constexpr size_t kHotFunctions = 12;
  for (size_t e = 1; e < tables_.events.size(); ++e)
    if (tables_.events[e].samples > tables_.events[tables_.busiest_event].samples) tables_.busiest_event = e;
  // Leaf weights by (DSO, symbol start), user code with symbols only: kernel code has no file
  // here to disassemble.
  std::map<std::pair<const session::Dso*, uint64_t>, HtmlHotFunction> functions;
  const auto& locations = locations_.locations();
  for (const auto& [key, weight] : leaf_weights_) {
    if (key >> 32 != tables_.busiest_event) continue;
    const ProfileLocations::Location& location = locations[static_cast<uint32_t>(key)];
    if (location.dso == nullptr || location.dso->is_kernel()) continue;
    const ResolvedSymbol& symbol = symbols_.resolve(*location.dso, location.dso_address);
    if (!symbol.found) continue;
    uint64_t start = symbol.elf_address - symbol.offset;
    HtmlHotFunction& function = functions[{location.dso, start}];
    if (function.dso == nullptr) {
      function.dso = location.dso;
      function.name = std::string(symbol.name);
      function.start = start;
    }
    function.total += weight;
    function.weights[symbol.elf_address] += weight;
  }
  for (auto& [key, function] : functions) tables_.hot_functions.push_back(std::move(function));
  std::sort(tables_.hot_functions.begin(), tables_.hot_functions.end(),
            [](const HtmlHotFunction& a, const HtmlHotFunction& b) { return a.total > b.total; });
  if (tables_.hot_functions.size() > kHotFunctions) tables_.hot_functions.resize(kHotFunctions);
}

HtmlReportTables HtmlReportData::finish() {
  if (!prepared_) prepare();
  find_hot_functions();
  tables_.cpu_slices = cpu_lanes_.finish(last_time_);
  // Every location's functions as frames, innermost first.
  std::vector<std::vector<uint32_t>> location_frames;
  std::unordered_map<std::string, uint32_t> frame_ids;
  std::string key;
  for (const ProfileLocations::Location& location : locations_.locations()) {
    auto& ids = location_frames.emplace_back();
    std::string dso = location.dso != nullptr ? location.dso->short_name : std::string("[unknown]");
    bool kernel = location.dso != nullptr && location.dso->is_kernel();
    // A frame is a function of a DSO, whatever line the address has: the trees count functions.
    for (ProfileLocations::Frame& named : locations_.named_frames(location, symbols_)) {
      key = named.name;
      key.push_back('\0');
      key += dso;
      auto [it, fresh] = frame_ids.try_emplace(key, static_cast<uint32_t>(tables_.frames.size()));
      ids.push_back(it->second);
      if (fresh) tables_.frames.push_back({std::move(named.name), dso, std::move(named.file), 0, kernel});
    }
  }
  // Each distinct location stack as a frame stack, root first: (prefix, frame) pairs interned,
  // so equal paths share their nodes.
  analysis::KeyIndex<2> nodes;  // prefix + 1 (0 for none), frame
  std::vector<uint32_t> leaf_of(stacks_.size(), UINT32_MAX);
  for (uint32_t stack = 0; stack < stacks_.size(); ++stack) {
    uint64_t prefix = 0;
    auto locations = stacks_.sequence(stack);
    for (size_t l = locations.size(); l-- > 0;) {
      const auto& inner_first = location_frames[locations[l]];
      for (size_t f = inner_first.size(); f-- > 0;) {
        bool fresh;
        uint32_t node = nodes.intern({prefix, inner_first[f]}, fresh);
        if (fresh) {
          tables_.stack_prefix.push_back(prefix == 0 ? -1 : static_cast<int32_t>(prefix - 1));
          tables_.stack_frame.push_back(inner_first[f]);
        }
        prefix = uint64_t{node} + 1;
      }
    }
    leaf_of[stack] = prefix == 0 ? UINT32_MAX : static_cast<uint32_t>(prefix - 1);
  }
  tables_.sample_stacks.reserve(location_stacks_.size());
  for (uint32_t stack : location_stacks_) tables_.sample_stacks.push_back(leaf_of[stack]);
  location_stacks_.clear();
  location_stacks_.shrink_to_fit();
  return std::move(tables_);
}

}  // namespace sonde::output
