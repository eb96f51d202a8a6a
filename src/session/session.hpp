#pragma once
// A perf.data file replayed: records in timestamp order (perf's ordered events), side-band
// applied to the Machine, each sample handed to a visitor with its thread and its callchain
// placed in maps and DSOs. Symbols are the next layer's job; this layer only says where.
//
//   auto session = Session::open("perf.data");
//   struct Counter : SessionVisitor { void on_sample(const SampleEvent& s) override { ... } } v;
//   session->process(v);
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "format/sample.hpp"
#include "perfdata/reader.hpp"
#include "session/machine.hpp"

namespace sonde::session {

struct SampleEvent {
  const perfdata::RecordView& record;
  const perfdata::Sample& sample;
  const perfdata::EventAttr& event;
  size_t event_index;  // position of `event` in reader().attrs().events()
  Thread& thread;
  uint8_t cpumode;  // the sample's (header.misc & PERF_RECORD_MISC_CPUMODE_MASK)
  // Leaf first: the sampled ip, then its callers. From PERF_SAMPLE_CALLCHAIN (context markers
  // removed, each entry placed with the cpumode its marker gave), followed by the user frames
  // of a DWARF unwind when an unwinder is set. Without a callchain, just the sampled ip.
  std::span<const Location> callchain;
  // Where the frames of the DWARF unwind start in `callchain` (perf names those by their inline
  // chains); callchain.size() when nothing was unwound.
  size_t unwound_from = 0;
};

// Fills in the user part of a `--call-graph dwarf` sample from its registers and stack copy.
class UserStackUnwinder {
 public:
  virtual ~UserStackUnwinder() = default;
  // Appends the user frames, innermost first, to `frames`.
  virtual void unwind(const Machine& machine, const Thread& thread, const perfdata::Sample& sample,
                      std::vector<Location>& frames) = 0;
};

class SessionVisitor {
 public:
  virtual ~SessionVisitor() = default;
  virtual void on_sample(const SampleEvent& sample) = 0;
  // Every other record in delivery order, after the machine has applied it. `attr` is the
  // event the record's sample_id names (nullptr when it names none) and `id` its trailer.
  // perf's own records (types 64 and up, FINISHED_ROUND included) come as they are read.
  // A failure stops the replay: process() returns it.
  virtual Result<void> on_record(const perfdata::RecordView& /*record*/, const perfdata::EventAttr* /*attr*/,
                                 const perfdata::SampleId& /*id*/) {
    return {};
  }
};

struct SessionStats {
  uint64_t records = 0;
  uint64_t samples = 0;
  uint64_t lost_events = 0;   // PERF_RECORD_LOST
  uint64_t lost_samples = 0;  // PERF_RECORD_LOST_SAMPLES
  uint64_t undecodable_samples = 0;
};

class Session {
 public:
  // `path` "-" reads a pipe-mode stream from standard input. The warnings (a cut data section or
  // record, unreadable features, samples that cannot be read) go to `diagnostics`, which outlives
  // the session; without it they are dropped.
  static Result<Session> open(const std::string& path, Diagnostics& diagnostics);
  static Result<Session> open(const std::string& path);

  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  ~Session();

  perfdata::PerfDataReader& reader();
  Machine& machine();
  const SessionStats& stats() const;
  // Without one, DWARF samples keep only their kernel part and sampled ip.
  void set_unwinder(UserStackUnwinder* unwinder);
  // Off: samples arrive with an empty callchain (unless an unwinder is set), for visitors that
  // place the raw PERF_SAMPLE_CALLCHAIN themselves, with caches keyed on the raw addresses.
  void set_locate_callchains(bool locate);
  // process() draws a progress line on stderr, led by `label`, when stderr is a terminal and
  // the pass takes more than a second; it is erased when the pass ends.
  void show_progress(std::string label);
  // Off: the file is read on the calling thread only (the default reads a mapped file ahead on
  // a second thread when there is a second CPU; both deliver the same records in the same order).
  void set_read_ahead(bool read_ahead);
  // Off: records are delivered in file order, not sorted by time (perf's --disable-order,
  // script's --show-round-events and --dump-unsorted-raw-trace).
  void set_ordered(bool ordered);
  // Replays the whole file once. Stops with the reader's error on a corrupt record.
  Result<void> process(SessionVisitor& visitor);

 private:
  struct State;
  explicit Session(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// An event's display name as perf prints it: EVENT_DESC's name, else one derived from the attr.
std::string event_name(const perfdata::EventAttr& event);

}  // namespace sonde::session
