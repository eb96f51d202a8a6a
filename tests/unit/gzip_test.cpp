// base64 against RFC 4648's test vectors; gzip checked by inflating it back with zlib.
#include "base/gzip.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

namespace sonde {
namespace {

TEST(Base64, Rfc4648Vectors) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64(std::string("\xff\xfe\x00", 3)), "//4A");
}

TEST(Gzip, InflatesBack) {
  std::string text(100000, 'x');
  for (size_t i = 0; i < text.size(); i += 7) text[i] = static_cast<char>('a' + i % 26);
  auto packed = gzip(text);
  ASSERT_TRUE(packed) << packed.error().message;
  ASSERT_GE(packed->size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>((*packed)[0]), 0x1f);  // gzip's magic
  EXPECT_EQ(static_cast<unsigned char>((*packed)[1]), 0x8b);
  z_stream stream{};
  ASSERT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  std::string out(text.size() + 16, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(packed->data());
  stream.avail_in = static_cast<uInt>(packed->size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  inflateEnd(&stream);
  EXPECT_EQ(out, text);
}

}  // namespace
}  // namespace sonde
