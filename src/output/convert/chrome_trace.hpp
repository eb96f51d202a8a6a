#pragma once
// data convert --to-chrome from a perf.data file: the Chrome trace event format (chrome_events).
// Each thread's samples become a flame chart of nested begin/end ("B"/"E") slices on its own
// track: a frame stays open while consecutive samples keep it on their stack, and closes when a
// sample leaves it or the thread stops being sampled (a gap of more than two sample periods).
// Tracepoints are instant events with their fields as args; sched_switch also draws which task
// runs on each CPU. Streamed: memory holds the open stacks and the distinct frames, not the
// samples.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/report/hist_index.hpp"
#include "output/convert/chrome_events.hpp"
#include "output/convert/profile_locations.hpp"
#include "output/script/script_symbols.hpp"
#include "session/session.hpp"
#include "session/tracepoint_formats.hpp"

struct tep_event;

namespace sonde::output {

class ChromeTrace : public session::SessionVisitor {
 public:
  ChromeTrace(session::Session& session, ScriptSymbols& symbols, OutputStream& out);

  void on_sample(const session::SampleEvent& sample) override;
  // Closes what is open, names the tracks and ends the document.
  Result<void> finish();

  uint64_t samples() const { return samples_; }
  uint64_t bytes() const { return events_.bytes(); }

 private:
  struct ThreadTrack {
    int32_t pid = 0, tid = 0;
    std::string comm;
    std::vector<uint32_t> frames;  // the open stack, root first (ids in names_)
    std::vector<uint64_t> starts;  // when each opened
    uint64_t last_time = 0, cover = 0;
  };

  void prepare();
  const std::vector<uint32_t>& stack_frames(const session::SampleEvent& sample);
  // Closes the thread's open frames above the first `keep`, innermost first: 'E' events in time
  // order, the closing ones before the opening ones, so every reader nests them alike.
  void close_frames(ThreadTrack& track, size_t keep, uint64_t time);

  session::Session& session_;
  ScriptSymbols& symbols_;
  ChromeEvents events_;
  bool prepared_ = false;
  uint64_t samples_ = 0, last_time_ = 0;
  std::unique_ptr<session::TracepointFormats> formats_;
  std::vector<std::string> event_names_;
  std::vector<bool> event_nanoseconds_;
  size_t flame_event_ = SIZE_MAX;  // the event whose samples draw the flame charts

  ProfileLocations locations_;
  analysis::SequenceIndexOf<uint32_t> stacks_;          // location ids, leaf first
  std::vector<std::vector<uint32_t>> stack_frames_;     // by stack id: frame names, root first
  std::vector<std::vector<uint32_t>> location_frames_;  // by location id: names, innermost first
  std::vector<std::string> names_;                      // JSON-quoted frame names
  std::unordered_map<std::string, uint32_t> name_ids_;
  std::vector<uint32_t> scratch_;
  std::unordered_map<uint64_t, ThreadTrack> threads_;  // by pid << 32 | tid
};

}  // namespace sonde::output
