#pragma once
// The writing side of perf's COMPRESSED records (`perf record -z`): one zstd stream for the whole
// file, each chunk of records compressed and flushed into as many COMPRESSED records as it needs.
#include <memory>
#include <string>

#include "base/error.hpp"

namespace sonde::perfdata {

class Compressor {
 public:
  // zstd level 1..22 (perf's -z is level 1, --compression-level=N).
  static Result<Compressor> create(int level);
  Compressor(Compressor&&) noexcept;
  Compressor& operator=(Compressor&&) noexcept;
  ~Compressor();

  // Compresses `size` bytes of whole records into PERF_RECORD_COMPRESSED records, appended to
  // `out`. The stream carries on across calls, as perf's reader expects.
  Result<void> compress(const void* data, size_t size, std::string& out);
  uint64_t bytes_in() const { return bytes_in_; }
  uint64_t bytes_out() const { return bytes_out_; }

 private:
  Compressor() = default;
  struct State;
  std::unique_ptr<State> state_;
  uint64_t bytes_in_ = 0;
  uint64_t bytes_out_ = 0;
};

}  // namespace sonde::perfdata
