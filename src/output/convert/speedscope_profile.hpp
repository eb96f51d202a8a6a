#pragma once
// data convert --to-speedscope: speedscope's file format (https://www.speedscope.app/
// file-format-schema.json), one sampled profile per thread and event, its samples in time order
// (a run of equal stacks kept as one sample with their weights summed), weighted by period
// (nanoseconds for the clock events and off-CPU time). Frames are shared: a location's inlined
// functions become frames of their own, as in the pprof output.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/report/hist_index.hpp"
#include "base/error.hpp"
#include "base/output_stream.hpp"
#include "output/convert/profile_locations.hpp"
#include "output/script/script_symbols.hpp"
#include "session/session.hpp"

namespace sonde::output {

class SpeedscopeProfile : public session::SessionVisitor {
 public:
  // `name` titles the file in speedscope (the input's name).
  SpeedscopeProfile(session::Session& session, ScriptSymbols& symbols, OutputStream& out, std::string name);

  void on_sample(const session::SampleEvent& sample) override;
  // Writes the whole document (the samples are kept until then: a profile's samples are
  // listed together, while the file interleaves the threads').
  Result<void> finish();

  uint64_t samples() const { return samples_; }
  uint64_t bytes() const { return bytes_; }

 private:
  struct Track {  // one thread's samples of one event
    std::string name;
    bool nanoseconds = false;
    std::vector<uint32_t> stacks;  // ids in stacks_
    std::vector<uint64_t> weights;
    uint64_t total = 0;
  };

  session::Session& session_;
  ScriptSymbols& symbols_;
  OutputStream& out_;
  std::string name_;
  ProfileLocations locations_;
  std::vector<std::string> event_names_;
  std::vector<bool> event_nanoseconds_;
  analysis::KeyIndex<2> track_ids_;  // event, tid
  std::vector<Track> tracks_;
  analysis::SequenceIndexOf<uint32_t> stacks_;  // location ids, leaf first
  std::vector<uint32_t> scratch_;
  uint64_t samples_ = 0, bytes_ = 0;
};

}  // namespace sonde::output
