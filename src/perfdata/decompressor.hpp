#pragma once
// The zstd stream behind perf's COMPRESSED records (`perf record -z`). One stream spans all the
// COMPRESSED records of a file: a frame, and a record inside it, can continue in the next one.
#include <memory>
#include <vector>

#include "base/bytes.hpp"
#include "base/error.hpp"

namespace sonde::perfdata {

class Decompressor {
 public:
  Decompressor();
  ~Decompressor();
  Decompressor(Decompressor&&) noexcept;
  Decompressor& operator=(Decompressor&&) noexcept;

  // Decompresses one record's payload. The returned bytes stay valid until the next call.
  Result<Bytes> decompress(Bytes compressed);

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::vector<uint8_t> output_;
};

}  // namespace sonde::perfdata
