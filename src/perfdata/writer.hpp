#pragma once
// PerfDataWriter: writes a perf.data file (or a pipe-mode stream) that perf 6.1 reads.
//
// File mode, in call order:
//   create(path)        the file, 0600, with a placeholder header (data size 0, as perf leaves
//                       it: perf then warns that the record was not terminated properly)
//   write_attrs(attrs)  the ids and the attrs section; the data section starts right after
//   append(...)         records in kernel format, buffered into large writes
//   finalize(features)  the feature sections after the data, then the real header
// finalize can be called at any point after write_attrs (on SIGINT, on a crashed target): the
// file is valid with whatever data went in.
//
// Pipe mode (`-o -`): the 16-byte pipe header, HEADER_ATTR records, HEADER_FEATURE records (and
// HEADER_TRACING_DATA / HEADER_BUILD_ID records), then the data. Features must be known before
// the data starts: call write_pipe_features after write_attrs; finalize only flushes.
#include <linux/perf_event.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "format/features.hpp"

namespace sonde {
class OutputStream;
}

namespace sonde::perfdata {

// One event as the file describes it: the attr and the sample ids of its instances (one per
// CPU or thread the event was opened on).
struct AttrWithIds {
  perf_event_attr attr{};
  std::vector<uint64_t> ids;
};

class PerfDataWriter {
 public:
  // Creates (truncates) `path` with mode 0600. Renaming an existing file to .old is the caller's.
  static Result<PerfDataWriter> create(const std::string& path);
  // Writes pipe mode to `fd` (not closed by the writer), e.g. STDOUT_FILENO for `-o -`.
  static Result<PerfDataWriter> to_pipe(int fd);

  PerfDataWriter(PerfDataWriter&&) noexcept;
  PerfDataWriter& operator=(PerfDataWriter&&) noexcept;
  ~PerfDataWriter();

  bool is_pipe() const { return pipe_; }

  // Once, before any record.
  Result<void> write_attrs(std::span<const AttrWithIds> attrs);
  // Pipe mode only, after write_attrs and before the data.
  Result<void> write_pipe_features(const FeatureSet& features);

  // Bytes already in perf's record format (one or several whole records).
  Result<void> append(const void* data, size_t size);
  // One record: `header` then `payload` (header.size must equal 8 + payload size).
  Result<void> append_record(const perf_event_header& header, const void* payload);

  // Hands what is buffered to the file or pipe (a pipe's reader sees each round as it ends).
  Result<void> flush();
  // Whether the output is a regular file (not a pipe or a device such as -o /dev/null): only
  // such a file may be removed when the recording fails.
  bool regular_file() const { return regular_file_; }
  // File mode: writes the features that are set and rewrites the header. Pipe mode: flushes.
  // After finalize the writer accepts nothing more.
  Result<void> finalize(const FeatureSet& features);

  uint64_t data_size() const { return data_size_; }
  const std::string& path() const { return path_; }

 private:
  PerfDataWriter(std::unique_ptr<OutputStream> out, std::string path, bool pipe);
  Result<void> write_file_attrs(std::span<const AttrWithIds> attrs);
  Result<void> write_pipe_attrs(std::span<const AttrWithIds> attrs);

  std::unique_ptr<OutputStream> out_;
  std::string path_;
  bool pipe_ = false;
  bool regular_file_ = false;
  bool attrs_written_ = false;
  bool finalized_ = false;
  FileHeader header_;
  uint64_t data_size_ = 0;
};

}  // namespace sonde::perfdata
