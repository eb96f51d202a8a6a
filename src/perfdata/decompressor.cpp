#include "perfdata/decompressor.hpp"

#include <zstd.h>

#include <algorithm>

namespace sonde::perfdata {

namespace {
constexpr size_t kMaxOutput = size_t{1} << 30;
}  // namespace

struct Decompressor::State {
  ZSTD_DStream* stream = ZSTD_createDStream();
  ~State() { ZSTD_freeDStream(stream); }
};

Decompressor::Decompressor() : state_(std::make_unique<State>()) { ZSTD_initDStream(state_->stream); }
Decompressor::~Decompressor() = default;
Decompressor::Decompressor(Decompressor&&) noexcept = default;
Decompressor& Decompressor::operator=(Decompressor&&) noexcept = default;

Result<Bytes> Decompressor::decompress(Bytes compressed) {
  if (!state_->stream) return fail("cannot allocate a zstd stream");
  ZSTD_inBuffer in{compressed.data(), compressed.size(), 0};
  size_t produced = 0;
  if (output_.size() < ZSTD_DStreamOutSize()) output_.resize(ZSTD_DStreamOutSize());
  // Keep going until the input is used up and zstd has flushed everything it holds for it.
  while (true) {
    if (output_.size() - produced < ZSTD_DStreamOutSize()) {
      // A runaway ratio on corrupt input must not eat the machine: perf's own buffers are a few
      // MB. Checked before growing, so the buffer itself never passes the limit.
      if (output_.size() >= kMaxOutput) return fail("zstd output exceeds 1 GiB for one record");
      output_.resize(std::min(output_.size() * 2, kMaxOutput));
    }
    ZSTD_outBuffer out{output_.data() + produced, output_.size() - produced, 0};
    size_t ret = ZSTD_decompressStream(state_->stream, &out, &in);
    if (ZSTD_isError(ret)) return failf("zstd: {}", ZSTD_getErrorName(ret));
    produced += out.pos;
    if (in.pos == in.size && out.pos < out.size) break;
  }
  return Bytes(output_.data(), produced);
}

}  // namespace sonde::perfdata
