#pragma once
// The records of a data section or pipe stream, in order, with COMPRESSED records opened up in
// place: a consumer never sees a COMPRESSED record, only the records inside it.
#include <functional>
#include <optional>
#include <string>

#include "format/perf_format.hpp"
#include "perfdata/decompressor.hpp"
#include "perfdata/record_tokenizer.hpp"

namespace sonde::perfdata {

class RecordStream {
 public:
  enum class Status { Record, End };

  // The next input chunk; an empty span at end of input, an error on a failed read.
  using Refill = std::function<Result<Bytes>()>;

  // All input at once (an mmapped data section starting at `base_offset` in the file).
  RecordStream(Bytes input, uint64_t base_offset);
  // Input pulled from `refill` as needed (a pipe).
  RecordStream(Refill refill, uint64_t base_offset);

  // End: no more records. If the input stopped inside a record, truncation() says where.
  // Fails at a record that cannot be right or a failed read; the stream is not read further.
  Result<Status> next(RecordView& out);

  const std::optional<std::string>& truncation() const { return truncation_; }
  uint64_t offset() const { return outer_.offset(); }
  // The COMPRESSED (and COMPRESSED2) records opened so far: they are not handed out themselves.
  uint64_t compressed_records(uint32_t type) const {
    return type == PERF_RECORD_COMPRESSED2 ? compressed2_records_ : compressed_records_;
  }

 private:
  Result<void> decompress(const RecordView& compressed);

  RecordTokenizer outer_;
  Refill refill_;
  bool input_done_ = false;
  std::optional<Decompressor> decompressor_;
  RecordTokenizer inner_;
  uint64_t compressed_offset_ = 0;
  uint64_t compressed_records_ = 0, compressed2_records_ = 0;
  std::optional<std::string> truncation_;
};

}  // namespace sonde::perfdata
