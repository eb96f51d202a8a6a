#include "perfdata/compressor.hpp"

#include <linux/perf_event.h>
#include <zstd.h>

#include <cstring>

#include "format/perf_format.hpp"

namespace sonde::perfdata {

struct Compressor::State {
  ZSTD_CStream* stream = ZSTD_createCStream();
  ~State() { ZSTD_freeCStream(stream); }
};

Compressor::Compressor(Compressor&&) noexcept = default;
Compressor& Compressor::operator=(Compressor&&) noexcept = default;
Compressor::~Compressor() = default;

Result<Compressor> Compressor::create(int level) {
  if (level < 1 || level > ZSTD_maxCLevel())
    return failf("compression level {} is out of range; give 1 to {}", level, ZSTD_maxCLevel());
  Compressor compressor;
  compressor.state_ = std::make_unique<State>();
  if (!compressor.state_->stream) return fail("cannot create a zstd compression stream");
  size_t ret = ZSTD_initCStream(compressor.state_->stream, level);
  if (ZSTD_isError(ret)) return failf("zstd: {}", ZSTD_getErrorName(ret));
  return compressor;
}

Result<void> Compressor::compress(const void* data, size_t size, std::string& out) {
  // Each record holds what fits below perf's record size limit.
  constexpr size_t kHeader = sizeof(perf_event_header);
  constexpr size_t kMaxPayload = kMaxRecordSize - kHeader - 1;
  ZSTD_inBuffer in{data, size, 0};
  bool flushed = false;
  while (in.pos < in.size || !flushed) {
    size_t record_start = out.size();
    out.resize(record_start + kHeader + kMaxPayload);
    ZSTD_outBuffer dst{out.data() + record_start + kHeader, kMaxPayload, 0};
    size_t ret = in.pos < in.size ? ZSTD_compressStream(state_->stream, &dst, &in) : 0;
    if (ZSTD_isError(ret)) return failf("zstd: {}", ZSTD_getErrorName(ret));
    size_t left = ZSTD_flushStream(state_->stream, &dst);
    if (ZSTD_isError(left)) return failf("zstd: {}", ZSTD_getErrorName(left));
    flushed = left == 0 && in.pos == in.size;
    out.resize(record_start + kHeader + dst.pos);
    if (dst.pos == 0) {
      out.resize(record_start);
      continue;
    }
    perf_event_header header{PERF_RECORD_COMPRESSED, 0, static_cast<uint16_t>(kHeader + dst.pos)};
    std::memcpy(out.data() + record_start, &header, kHeader);
    bytes_out_ += kHeader + dst.pos;
  }
  bytes_in_ += size;
  return {};
}

}  // namespace sonde::perfdata
