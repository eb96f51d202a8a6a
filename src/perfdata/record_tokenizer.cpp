#include "perfdata/record_tokenizer.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "format/perf_format.hpp"

namespace sonde::perfdata {

size_t RecordTokenizer::extent_of(Bytes head) {
  if (head.size() < sizeof(perf_event_header)) return 0;
  auto header = load<perf_event_header>(head.data());
  if (header.size < sizeof(perf_event_header)) return kBadExtent;
  if (header.type != PERF_RECORD_HEADER_TRACING_DATA) return header.size;
  // The tracing data blob follows the record; its size is the record's only field.
  if (head.size() < sizeof(TracingDataRecord)) return 0;
  if (header.size < sizeof(TracingDataRecord)) return kBadExtent;
  size_t extent = header.size + size_t{load<TracingDataRecord>(head.data()).size};
  return extent > kMaxExtent ? kBadExtent : extent;
}

Error RecordTokenizer::bad_header(Bytes head) const {
  auto header = load<perf_event_header>(head.data());
  if (header.size < sizeof(perf_event_header))
    return Error{fmt::format("record at offset {:#x} (type {}) has size {}, below the 8-byte header", offset_,
                             header.type, header.size)};
  if (header.size < sizeof(TracingDataRecord))
    return Error{fmt::format("HEADER_TRACING_DATA record at offset {:#x} has size {}, below 12", offset_,
                             header.size)};
  size_t extent = header.size + size_t{load<TracingDataRecord>(head.data()).size};
  return Error{fmt::format("HEADER_TRACING_DATA record at offset {:#x} claims {} bytes", offset_, extent)};
}

void RecordTokenizer::release_chunk() {
  // Views into carry_ expire here: drop what was handed out before appending.
  if (carry_pos_ > 0) {
    carry_.erase(carry_.begin(), carry_.begin() + static_cast<std::ptrdiff_t>(carry_pos_));
    carry_pos_ = 0;
  }
  carry_.insert(carry_.end(), chunk_.begin() + static_cast<std::ptrdiff_t>(pos_), chunk_.end());
  chunk_ = {};
  pos_ = 0;
}

void RecordTokenizer::feed(Bytes chunk) {
  release_chunk();
  chunk_ = chunk;
}

Result<RecordTokenizer::Status> RecordTokenizer::next(RecordView& out) {
  if (carry_pos_ > 0 && carry_pos_ == carry_.size()) {
    carry_.clear();
    carry_pos_ = 0;
  }
  if (carry_pos_ == carry_.size()) {
    // The fast path: a record wholly inside the chunk, handed out in place.
    Bytes rest = chunk_.subspan(pos_);
    if (rest.empty()) return Status::NeedMore;
    size_t extent = extent_of(rest);
    if (extent == kBadExtent) return tl::unexpected(bad_header(rest));
    if (extent == 0 || extent > rest.size()) {
      release_chunk();
      return Status::NeedMore;
    }
    out.header = load<perf_event_header>(rest.data());
    out.bytes = rest.first(extent);
    out.offset = offset_;
    pos_ += extent;
    offset_ += extent;
    return Status::Record;
  }
  return take_from_carry(out);
}

Result<RecordTokenizer::Status> RecordTokenizer::take_from_carry(RecordView& out) {
  // carry_[carry_pos_..] holds the start of a record; the chunk holds what follows. Pull bytes
  // across in steps that never pass the record's end: the header, the tracing-data size, the rest.
  auto held = [&] { return carry_.size() - carry_pos_; };
  auto pull_until = [&](size_t wanted) {
    size_t take = std::min(wanted - std::min(wanted, held()), chunk_.size() - pos_);
    carry_.insert(carry_.end(), chunk_.begin() + static_cast<std::ptrdiff_t>(pos_),
                  chunk_.begin() + static_cast<std::ptrdiff_t>(pos_ + take));
    pos_ += take;
    return held() >= wanted;
  };
  auto held_bytes = [&] { return Bytes(carry_.data() + carry_pos_, held()); };
  if (!pull_until(sizeof(perf_event_header))) return Status::NeedMore;
  auto header = load<perf_event_header>(held_bytes().data());
  if (header.type == PERF_RECORD_HEADER_TRACING_DATA && !pull_until(sizeof(TracingDataRecord)))
    return Status::NeedMore;
  size_t extent = extent_of(held_bytes());
  if (extent == kBadExtent) return tl::unexpected(bad_header(held_bytes()));
  if (!pull_until(extent)) return Status::NeedMore;
  out.header = header;
  out.bytes = held_bytes().first(extent);
  out.offset = offset_;
  carry_pos_ += extent;
  offset_ += extent;
  return Status::Record;
}

}  // namespace sonde::perfdata
