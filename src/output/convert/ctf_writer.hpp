#pragma once
// A CTF 1.8 trace directory as perf 6.1 writes it through babeltrace's ctf-writer, whatever the
// input: a TSDL `metadata` file (trace, env, clock, one stream, the event classes) and one stream
// file per CPU, `perf_stream_N`, of packets of up to 100,000 events (magic, trace uuid, stream id;
// then begin/end stamps, sizes and the CPU; then the events, each an id and a stamp before its
// fields, little-endian and byte-packed). Also the tracepoint fields typed, aliased and put as
// perf puts them. Shared by the perf.data converter (ctf_trace) and the trace.dat one
// (ctf_tracedat).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

struct tep_event;
struct tep_format_field;

namespace sonde::output {

enum class CtfType : uint8_t { u32, s32, u64, s64, u64_hex, u32_hex, string };

// A tracepoint field as a CTF field: perf's type for it, and perf's alias ("_" before a TSDL
// keyword, "_dupl_N" after a name already taken).
struct CtfTracepointField {
  const tep_format_field* format;
  std::string name;
  CtfType type;
  bool array;  // a fixed array of `arraylen` elements (strings are not arrays)
};

// The event's common fields, then its own; `taken` holds the names already used in the class
// and gets these.
std::vector<CtfTracepointField> ctf_tracepoint_fields(const tep_event& format,
                                                      std::vector<std::string>& taken);
// The fields' TSDL declarations, a line each, for an event class's fields struct.
void append_ctf_declarations(std::string& out, const std::vector<CtfTracepointField>& fields);
// The fields' values from the payload `raw`, in the class's order.
void put_ctf_tracepoint_fields(std::string& out, const std::vector<CtfTracepointField>& fields,
                               const uint8_t* raw, size_t size);

template <typename T>
void put_ctf(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}
// perf's string_set_value: unprintable bytes as \xNN, then the NUL.
void put_ctf_string(std::string& out, std::string_view text);

// The TSDL text of a type, and of a name quoted as a string literal.
std::string ctf_type_text(CtfType type);
std::string ctf_quoted(std::string_view text);

class CtfWriter {
 public:
  struct Environment {  // the metadata's env block
    std::string hostname, release, version, machine;
  };

  // Creates `directory` (an existing one is written into), with a random trace uuid and a
  // stream for each of `cpus` CPUs.
  static Result<CtfWriter> create(std::string directory, size_t cpus);
  // The number of CPU streams, before the first event (a pipe's CPU count arrives late).
  void set_cpus(size_t cpus) { streams_.resize(cpus > 0 ? cpus : 1); }
  CtfWriter(CtfWriter&&) noexcept;
  CtfWriter& operator=(CtfWriter&&) noexcept;
  ~CtfWriter();

  // The stream of `cpu` (CPU 0's when out of range), its packet flushed first when full, with
  // the event's id and stamp put: the caller appends the fields. nullptr after a write failed.
  // Stamps past INT64_MAX, which CTF readers refuse, are written at the last real one.
  std::string* begin_event(uint32_t cpu, uint32_t id, uint64_t time);
  // Writes the last packets and the metadata: the preamble, then `event_classes` (TSDL event
  // blocks), with the clock's offset from the stamps' zero (--tod).
  Result<void> finish(const Environment& environment, int64_t clock_offset, std::string_view event_classes);

  const Result<void>& status() const { return status_; }
  uint64_t bytes() const { return bytes_; }

 private:
  struct Stream {
    std::string events;  // the packet being filled, events only
    uint64_t first_time = 0, last_time = 0;
    uint64_t count = 0;
    int fd = -1;
  };
  CtfWriter() = default;
  Result<void> flush(uint32_t cpu);
  std::string metadata(const Environment& environment, int64_t clock_offset) const;

  std::string directory_;
  std::vector<Stream> streams_;  // by CPU
  uint8_t uuid_[16] = {};
  Result<void> status_;
  uint64_t last_real_time_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace sonde::output
