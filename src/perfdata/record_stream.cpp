#include "perfdata/record_stream.hpp"

#include <fmt/format.h>

#include "format/perf_format.hpp"

namespace sonde::perfdata {

RecordStream::RecordStream(Bytes input, uint64_t base_offset) : outer_(base_offset), input_done_(true) {
  outer_.feed(input);
}

RecordStream::RecordStream(Refill refill, uint64_t base_offset) : outer_(base_offset), refill_(std::move(refill)) {}

RecordStream::Status RecordStream::fail_with(std::string message) {
  error_ = std::move(message);
  return Status::Error;
}

RecordStream::Status RecordStream::decompress(const RecordView& compressed) {
  Bytes payload = compressed.payload();
  if (compressed.type() == PERF_RECORD_COMPRESSED2) {
    // COMPRESSED2 states its data size, the rest of the record being padding.
    auto data_size = ByteReader(payload).read<uint64_t>();
    if (!data_size || *data_size > payload.size() - sizeof(uint64_t))
      return fail_with(fmt::format("COMPRESSED2 record at offset {:#x}: bad data size", compressed.offset));
    payload = payload.subspan(sizeof(uint64_t), *data_size);
  }
  if (!decompressor_) decompressor_.emplace();
  // The previous output buffer is reused: move any partial record out of it first.
  inner_.release_chunk();
  auto output = decompressor_->decompress(payload);
  if (!output) return fail_with(fmt::format("COMPRESSED record at offset {:#x}: {}", compressed.offset, output.error().message));
  inner_.feed(*output);
  compressed_offset_ = compressed.offset;
  return Status::Record;
}

RecordStream::Status RecordStream::next(RecordView& out) {
  if (!error_.empty()) return Status::Error;
  while (true) {
    if (decompressor_) {
      auto status = inner_.next(out);
      if (status == RecordTokenizer::Status::Record) {
        out.offset = compressed_offset_;
        return Status::Record;
      }
      if (status == RecordTokenizer::Status::Error)
        return fail_with(fmt::format("in the COMPRESSED record at offset {:#x}: {}", compressed_offset_, inner_.error()));
    }
    auto status = outer_.next(out);
    if (status == RecordTokenizer::Status::Error) return fail_with(outer_.error());
    if (status == RecordTokenizer::Status::Record) {
      if (out.type() != PERF_RECORD_COMPRESSED && out.type() != PERF_RECORD_COMPRESSED2) return Status::Record;
      if (decompress(out) == Status::Error) return Status::Error;
      continue;
    }
    // NeedMore.
    if (!input_done_) {
      outer_.release_chunk();
      auto chunk = refill_();
      if (!chunk) return fail_with(chunk.error().message);
      if (!chunk->empty()) {
        outer_.feed(*chunk);
        continue;
      }
      input_done_ = true;
    }
    if (outer_.pending_bytes() > 0)
      truncation_ = fmt::format("the data ends inside a record at offset {:#x} ({} bytes of it present)", outer_.offset(),
                                outer_.pending_bytes());
    else if (decompressor_ && inner_.pending_bytes() > 0)
      truncation_ = fmt::format("the compressed data ends inside a record (COMPRESSED record at offset {:#x})", compressed_offset_);
    return Status::End;
  }
}

}  // namespace sonde::perfdata
