#pragma once
// data convert --to-ctf DIR: CTF 1.8 as perf 6.1 writes it through babeltrace's ctf-writer, so
// babeltrace2 (and LTTng's and Trace Compass's readers) print the same events with the same
// fields: a TSDL `metadata` file, one event class per event (perf's generic perf_* fields by
// its sample_type, a tracepoint's common and own fields typed as perf types them, the raw
// callchain as a sequence), and one stream file per CPU, `perf_stream_N`, of packets
// (magic, trace uuid, stream id; then begin/end stamps, sizes and the CPU; then the events,
// each an id and a stamp before its fields, little-endian and byte-packed).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "session/session.hpp"
#include "session/tracepoint_formats.hpp"

struct tep_format_field;

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
  uint64_t bytes() const { return bytes_; }

 private:
  enum class FieldType : uint8_t { u32, s32, u64, s64, u64_hex, u32_hex, string };
  struct TracepointField {
    const tep_format_field* format;
    std::string name;  // perf's alias: "_" before a TSDL keyword, "_dupl_N" after a repeat
    FieldType type;
    bool array;  // a fixed array of `arraylen` elements (strings are not arrays)
  };
  struct EventClass {
    std::string name;
    uint64_t sample_type = 0;
    bool bpf_output = false;
    std::vector<TracepointField> fields;  // a tracepoint's common fields, then its own
  };
  struct Stream {
    std::string events;  // the packet being filled, events only
    uint64_t first_time = 0, last_time = 0;
    uint64_t count = 0;
    int fd = -1;
  };

  CtfTrace(session::Session& session, std::string directory, Options options);
  // The stream of `cpu`, its packet flushed first when full; the event's id and stamp put.
  std::string* begin_event(uint32_t cpu, uint32_t id, uint64_t time);
  Result<void> prepare();
  void make_classes();
  Result<void> flush(uint32_t cpu);
  std::string metadata() const;

  session::Session& session_;
  std::string directory_;
  Options options_;
  std::unique_ptr<session::TracepointFormats> formats_;
  std::vector<EventClass> classes_;
  std::vector<Stream> streams_;  // by CPU
  uint8_t uuid_[16] = {};
  Result<void> status_;
  bool classes_ready_ = false;
  uint64_t last_real_time_ = 0;
  uint64_t samples_ = 0, non_samples_ = 0, bytes_ = 0;
};

}  // namespace sonde::output
