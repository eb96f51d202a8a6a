#pragma once
// data convert --to-firefox: the Gecko profile format (version 24) that the Firefox Profiler
// (profiler.firefox.com, "Load a profile from file") imports, and that newer perf's
// `perf script report gecko` writes. One Gecko thread per thread (per thread and event when the
// file has several events), each with its own string, frame and stack tables and its samples in
// time order, in milliseconds from the first sample; frames named "function (in dso)" as perf's
// script names them, in two categories, User (yellow) and Kernel (orange). A location's inlined
// functions are frames of their own, with their source lines. Samples are counted, not weighted,
// as the format and perf's script count them.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/report/hist_index.hpp"
#include "base/error.hpp"
#include "base/output_stream.hpp"
#include "output/convert/profile_locations.hpp"
#include "output/script/script_symbols.hpp"
#include "session/session.hpp"

namespace sonde::output {

class FirefoxProfile : public session::SessionVisitor {
 public:
  FirefoxProfile(session::Session& session, ScriptSymbols& symbols, OutputStream& out);

  void on_sample(const session::SampleEvent& sample) override;
  // Writes the whole document: a thread's tables come before its samples, and are known only
  // once every sample has been seen.
  Result<void> finish();

  uint64_t samples() const { return samples_; }
  uint64_t bytes() const { return bytes_; }

 private:
  struct Thread {
    std::string name;  // the thread's latest comm
    size_t event = 0;
    int32_t pid = 0, tid = 0;
    std::vector<uint32_t> stacks;  // ids in stacks_
    std::vector<uint64_t> times;   // nanoseconds
  };
  struct Frame {           // one function at one location, as the whole file knows it
    std::string location;  // "function (in dso)"
    int64_t line = 0;
    bool kernel = false;
  };
  // A thread's tables, written as one Gecko thread.
  Result<void> write_thread(const Thread& thread, const std::vector<std::vector<uint32_t>>& location_frames,
                            const std::vector<Frame>& frames, std::string& out);
  Result<void> drain(std::string& out);

  session::Session& session_;
  ScriptSymbols& symbols_;
  OutputStream& out_;
  ProfileLocations locations_;
  std::vector<std::string> event_names_;
  analysis::KeyIndex<2> thread_ids_;  // event, tid
  std::vector<Thread> threads_;
  analysis::SequenceIndexOf<uint32_t> stacks_;  // location ids, leaf first
  std::vector<uint32_t> scratch_;
  uint64_t first_time_ = UINT64_MAX;
  uint64_t samples_ = 0, bytes_ = 0;
};

}  // namespace sonde::output
