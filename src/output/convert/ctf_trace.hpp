#pragma once
// data convert --to-ctf DIR from a perf.data file: CTF 1.8 as perf 6.1 writes it (ctf_writer), so
// babeltrace2 (and LTTng's and Trace Compass's readers) print the same events with the same
// fields: one event class per event, with perf's generic perf_* fields by its sample_type, a
// tracepoint's common and own fields typed as perf types them, the raw callchain as a sequence,
// BPF output as words; with --all, perf's perf_comm/exit/fork/mmap/mmap2 classes for the
// side-band records.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "output/convert/ctf_writer.hpp"
#include "session/session.hpp"
#include "session/tracepoint_formats.hpp"

namespace sonde::output {

class CtfTrace : public session::SessionVisitor {
 public:
  struct Options {
    bool all = false;  // --all: also COMM, EXIT, FORK, MMAP and MMAP2 records, as perf_* events
    bool tod = false;  // --tod: stamps as wall-clock time, from the file's CLOCK_DATA
  };
  // Creates DIR; the event classes are worked out at the first sample.
  static Result<std::unique_ptr<CtfTrace>> create(session::Session& session, const std::string& directory,
                                                  Options options);
  ~CtfTrace() override;

  void on_sample(const session::SampleEvent& sample) override;
  Result<void> on_record(const perfdata::RecordView& record, const perfdata::EventAttr* attr,
                         const perfdata::SampleId& id) override;
  // Writes the last packets and the metadata.
  Result<void> finish();

  uint64_t samples() const { return samples_; }
  uint64_t non_samples() const { return non_samples_; }
  uint64_t bytes() const { return writer_.bytes(); }

 private:
  struct EventClass {
    std::string name;
    uint64_t sample_type = 0;
    bool bpf_output = false;
    std::vector<CtfTracepointField> fields;  // a tracepoint's common fields, then its own
  };

  CtfTrace(session::Session& session, CtfWriter writer, Options options);
  void make_classes();
  std::string event_classes() const;

  session::Session& session_;
  CtfWriter writer_;
  Options options_;
  std::unique_ptr<session::TracepointFormats> formats_;
  std::vector<EventClass> classes_;
  bool classes_ready_ = false;
  uint64_t samples_ = 0, non_samples_ = 0;
};

}  // namespace sonde::output
