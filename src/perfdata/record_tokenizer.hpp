#pragma once
// Splits a byte stream into records, resumably: input arrives in chunks of any size (a pipe's
// reads, or one chunk holding a whole mmapped data section), and a record cut by a chunk boundary
// is completed from the next chunk. Records wholly inside a chunk are handed out in place; only
// a straddling record is copied. Pipe mode and COMPRESSED payloads both fall out of this.
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "format/record_view.hpp"

namespace sonde::perfdata {

class RecordTokenizer {
 public:
  enum class Status { Record, NeedMore };

  // `base_offset`: the stream offset of the first byte fed, for positions in messages.
  explicit RecordTokenizer(uint64_t base_offset = 0) : offset_(base_offset) {}

  // Adds input. The previous chunk may be released: its unread tail is copied first.
  // `chunk` must stay valid until the next feed() or release_chunk().
  void feed(Bytes chunk);
  // Copies the unread tail of the current chunk and forgets the chunk, so its memory can be reused.
  void release_chunk();

  // The next whole record. A view stays valid until the next call to next(), feed() or
  // release_chunk(). NeedMore: the input so far ends inside a record (or exactly at its end).
  // Fails at a record header that cannot be right (size below 8), saying where; the tokenizer
  // stays at that record, so calling again fails again.
  Result<Status> next(RecordView& out);

  // Bytes of a started but incomplete record, held until more input arrives.
  size_t pending_bytes() const { return (carry_.size() - carry_pos_) + (chunk_.size() - pos_); }
  // Stream offset of the next record.
  uint64_t offset() const { return offset_; }
  // The largest record extent accepted (HEADER_TRACING_DATA's blob can be megabytes).
  static constexpr size_t kMaxExtent = size_t{1} << 30;

 private:
  // The record's full extent from its first bytes: header.size, plus the tracing-data blob.
  // 0 when more bytes are needed to tell; kBadExtent for a header that cannot be right.
  static size_t extent_of(Bytes head);
  static constexpr size_t kBadExtent = SIZE_MAX;
  // Why extent_of(head) said kBadExtent.
  Error bad_header(Bytes head) const;
  Result<Status> take_from_carry(RecordView& out);

  Bytes chunk_;
  size_t pos_ = 0;
  std::vector<uint8_t> carry_;  // bytes before the chunk's, from carry_pos_ on not yet handed out
  size_t carry_pos_ = 0;
  uint64_t offset_ = 0;
};

}  // namespace sonde::perfdata
