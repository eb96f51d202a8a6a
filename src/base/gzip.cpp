#include "base/gzip.hpp"

#include <zlib.h>

namespace sonde {

Result<std::string> gzip(std::string_view bytes) {
  // One deflate call: its counts are 32-bit.
  if (bytes.size() > UINT32_MAX / 2)
    return failf("cannot compress {} bytes at once (2 GiB at most)", bytes.size());
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return fail("zlib could not start a gzip stream");
  std::string out(deflateBound(&stream, bytes.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) return fail("zlib could not compress the data");
  return out;
}

std::string base64(std::string_view bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto byte = [&](size_t at) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[at])); };
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t word = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    for (int shift : {18, 12, 6, 0}) out.push_back(kDigits[word >> shift & 63]);
  }
  size_t left = bytes.size() - i;
  if (left > 0) {
    uint32_t word = byte(i) << 16 | (left == 2 ? byte(i + 1) << 8 : 0);
    out.push_back(kDigits[word >> 18 & 63]);
    out.push_back(kDigits[word >> 12 & 63]);
    out.push_back(left == 2 ? kDigits[word >> 6 & 63] : '=');
    out.push_back('=');
  }
  return out;
}

}  // namespace sonde
