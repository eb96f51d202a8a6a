#include "perfdata/record_stream.hpp"

#include <fmt/format.h>

#include "format/perf_format.hpp"

namespace sonde::perfdata {

RecordStream::RecordStream(Bytes input, uint64_t base_offset) : outer_(base_offset), input_done_(true) {
  outer_.feed(input);
}

RecordStream::RecordStream(Refill refill, uint64_t base_offset)
    : outer_(base_offset), refill_(std::move(refill)) {}

Result<void> RecordStream::decompress(const RecordView& compressed) {
  Bytes payload = compressed.payload();
  if (compressed.type() == PERF_RECORD_COMPRESSED2) {
    // COMPRESSED2 states its data size, the rest of the record being padding.
    auto data_size = ByteReader(payload).read<uint64_t>();
    if (!data_size || *data_size > payload.size() - sizeof(uint64_t))
      return failf("COMPRESSED2 record at offset {:#x}: bad data size", compressed.offset);
    payload = payload.subspan(sizeof(uint64_t), *data_size);
  }
  if (!decompressor_) decompressor_.emplace();
  // The previous output buffer is reused: move any partial record out of it first.
  inner_.release_chunk();
  auto output = decompressor_->decompress(payload);
  if (!output)
    return failf("COMPRESSED record at offset {:#x}: {}", compressed.offset, output.error().message);
  inner_.feed(*output);
  compressed_offset_ = compressed.offset;
  return {};
}

Result<RecordStream::Status> RecordStream::next(RecordView& out) {
  while (true) {
    if (decompressor_) {
      auto status = inner_.next(out);
      if (!status)
        return failf("in the COMPRESSED record at offset {:#x}: {}", compressed_offset_,
                     status.error().message);
      if (*status == RecordTokenizer::Status::Record) {
        out.offset = compressed_offset_;
        return Status::Record;
      }
    }
    auto status = outer_.next(out);
    if (!status) return tl::unexpected(status.error());
    if (*status == RecordTokenizer::Status::Record) {
      if (out.type() != PERF_RECORD_COMPRESSED && out.type() != PERF_RECORD_COMPRESSED2)
        return Status::Record;
      ++(out.type() == PERF_RECORD_COMPRESSED2 ? compressed2_records_ : compressed_records_);
      if (auto opened = decompress(out); !opened) return tl::unexpected(opened.error());
      continue;
    }
    // NeedMore.
    if (!input_done_) {
      outer_.release_chunk();
      auto chunk = refill_();
      if (!chunk) return tl::unexpected(chunk.error());
      if (!chunk->empty()) {
        outer_.feed(*chunk);
        continue;
      }
      input_done_ = true;
    }
    if (outer_.pending_bytes() > 0)
      truncation_ = fmt::format("the data ends inside a record at offset {:#x} ({} bytes of it present)",
                                outer_.offset(), outer_.pending_bytes());
    else if (decompressor_ && inner_.pending_bytes() > 0)
      truncation_ = fmt::format(
          "the compressed data ends inside a record (COMPRESSED record at offset {:#x})", compressed_offset_);
    return Status::End;
  }
}

}  // namespace sonde::perfdata
