#pragma once
// data convert --to-pprof: a replay aggregated into pprof's profile.proto. Samples with the same
// stack and the same thread (pid, tid, comm, CPU labels) become one pprof sample, with two values
// per event: its sample count and its period (in nanoseconds for the clock events and off-CPU
// time, else a count). Locations are (mapping, address) with their inline frames as several
// lines, innermost first; mappings carry the file, its offset and its build-id. Memory grows
// with the distinct stacks, threads and addresses, not with the samples.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/report/hist_index.hpp"
#include "base/error.hpp"
#include "output/convert/profile_locations.hpp"
#include "output/script/script_symbols.hpp"
#include "session/session.hpp"

namespace sonde::output {

class PprofProfile : public session::SessionVisitor {
 public:
  PprofProfile(session::Session& session, ScriptSymbols& symbols);

  void on_sample(const session::SampleEvent& sample) override;
  // The profile.proto message, serialized and gzip-compressed (pprof's .pb.gz).
  Result<std::string> finish();

  uint64_t samples() const { return samples_; }

 private:
  uint32_t comm_id(const std::string& comm);

  session::Session& session_;
  ScriptSymbols& symbols_;
  size_t columns_ = 0;  // two per event: samples, period
  std::vector<std::string> event_names_;
  uint64_t samples_ = 0, first_time_ = UINT64_MAX, last_time_ = 0;
  bool any_cpu_ = false;

  ProfileLocations locations_;
  std::unordered_map<std::string, uint32_t> comms_;
  std::vector<std::string> comm_names_;
  analysis::KeyIndex<4> thread_ids_;  // pid, tid, comm, cpu
  // [thread, location ids leaf first] -> the pprof sample; its values at id * columns_.
  analysis::SequenceIndexOf<uint32_t> stacks_;
  std::vector<int64_t> values_;
  std::vector<uint32_t> scratch_;
};

}  // namespace sonde::output
