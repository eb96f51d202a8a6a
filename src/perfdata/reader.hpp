#pragma once
// PerfDataReader: reads a perf.data file (mmapped, zero-copy) or a pipe-mode stream (`-i -`).
//
//   auto reader = PerfDataReader::open("perf.data", diagnostics);  // warnings: unreadable features
//   if (!reader) { print(reader.error().message); ... }
//   for (RecordView r : reader->records(diagnostics)) { ... }     // warnings: truncation
//   if (reader->error()) ...            // iteration stopped at a corrupt record
//
// File mode parses the header, attrs and features in open(). In pipe mode they arrive as records
// (HEADER_ATTR, HEADER_FEATURE, HEADER_TRACING_DATA, HEADER_BUILD_ID) and attrs()/features()
// fill in as records() passes them; perf writes them first, so they are known before the first
// sample. Those records are still handed to the caller.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "format/features.hpp"
#include "format/perf_format.hpp"
#include "format/record_view.hpp"
#include "perfdata/attrs.hpp"

namespace sonde::perfdata {

class PerfDataReader {
 public:
  // `path` "-" reads a pipe-mode stream from standard input. What is wrong with the header but
  // can be read past (a cut data section, unreadable features) goes to `diagnostics` as warnings;
  // without it such warnings are dropped.
  static Result<PerfDataReader> open(const std::string& path, Diagnostics& diagnostics);
  static Result<PerfDataReader> open(const std::string& path);
  // A pipe-mode stream from `fd` (not closed by the reader). Its header arrives as records: its
  // warnings are records()'s.
  static Result<PerfDataReader> open_stream(int fd);

  PerfDataReader(PerfDataReader&&) noexcept;
  PerfDataReader& operator=(PerfDataReader&&) noexcept;
  ~PerfDataReader();

  bool is_pipe() const;
  // The COMPRESSED or COMPRESSED2 (`type`) records read so far, which records() opens rather than
  // hands out.
  uint64_t compressed_records(uint32_t type) const;
  const FileHeader& header() const;
  const AttrTable& attrs() const;
  const FeatureSet& features() const;
  bool has_feature(int feature) const;
  // The raw bytes of a feature section (empty when absent).
  Bytes feature_section(int feature) const;
  // The TRACING_DATA feature, or the blob of a HEADER_TRACING_DATA record in pipe mode.
  Bytes tracing_data() const;
  // Set when records() stopped at a record that cannot be right. Records before it were
  // delivered.
  const std::optional<Error>& error() const;

  class RecordIterator {
   public:
    using value_type = RecordView;
    using difference_type = std::ptrdiff_t;
    RecordIterator() = default;
    explicit RecordIterator(PerfDataReader* reader) : reader_(reader) { ++*this; }
    const RecordView& operator*() const { return current_; }
    const RecordView* operator->() const { return &current_; }
    RecordIterator& operator++();
    void operator++(int) { ++*this; }
    bool operator==(const RecordIterator& other) const { return reader_ == other.reader_; }

   private:
    PerfDataReader* reader_ = nullptr;  // nullptr at the end
    RecordView current_;
  };
  struct RecordRange {
    PerfDataReader* reader;
    RecordIterator begin() { return RecordIterator(reader); }
    RecordIterator end() { return RecordIterator(); }
  };
  // The records of the data section in file order (COMPRESSED records opened up). A file can
  // be iterated again; a pipe only once. Each view is valid until the iterator moves on.
  // Warnings found while reading (a record cut by the end of the file, a pipe's bad header
  // records) go to `diagnostics`, which must outlive the iteration; without it they are dropped.
  RecordRange records(Diagnostics& diagnostics);
  RecordRange records();
  // File mode: the mapped bytes before file offset `offset` may leave memory (they are read
  // again from the file if touched). A no-op for pipes.
  void release_before(uint64_t offset);
  // Off: records() hands out the pipe-mode header records (HEADER_ATTR, HEADER_FEATURE,
  // HEADER_TRACING_DATA, HEADER_BUILD_ID) without taking them in; the caller passes each to
  // absorb() when it gets there. A thread reading ahead then leaves attrs() and features()
  // as they are for the thread still working behind it.
  void set_absorb_while_reading(bool absorb);
  void absorb(const RecordView& record);
  // The record types absorb() takes in (they change attrs(), features() or tracing_data()).
  static bool changes_header(uint32_t type);
  // True when the record's bytes are the file's own mapping, valid as long as the reader (a
  // released page is read again from the file), not a buffer the reader reuses (pipes,
  // COMPRESSED records): such a record can be kept without a copy.
  bool maps(const RecordView& record) const;

 private:
  struct State;
  explicit PerfDataReader(std::unique_ptr<State> state);
  bool advance(RecordView& out);
  void absorb_user_record(const RecordView& record);

  std::unique_ptr<State> state_;
};

// A --kcore recording's kallsyms (DIR/kcore_dir/kallsyms): the symbols of the kernel it was taken
// on, which perf reads instead of /proc/kallsyms unless --kallsyms or --vmlinux says otherwise.
// "" for any other input.
std::string recording_kallsyms(const std::string& input);

}  // namespace sonde::perfdata
