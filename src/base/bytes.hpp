#pragma once
// Bounds-checked cursors over the bytes of a file section or record. Every read of file bytes
// goes through one of these (or an explicit size check), so a corrupt length can only end a
// parse with an error, never read past the mapping.
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace sonde {

// perf pads the strings of its header (feature sections, build-id file names) to this many bytes.
inline constexpr size_t kNameAlign = 64;

using Bytes = std::span<const uint8_t>;

// Reads trivially copyable values by memcpy: file bytes carry no alignment promise (pipe-mode
// feature records have odd sizes, build-id entries are 36 + 64n bytes).
template <typename T>
T load(const uint8_t* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// An unsigned number of 1, 2, 4 or 8 bytes (a tracepoint field's size), zero-extended; 0 for
// other sizes.
inline uint64_t load_unsigned(const uint8_t* p, int size) {
  switch (size) {
    case 1:
      return *p;
    case 2:
      return load<uint16_t>(p);
    case 4:
      return load<uint32_t>(p);
    case 8:
      return load<uint64_t>(p);
    default:
      return 0;
  }
}

// Numbers of a file written in either byte order (`swap`: the writer's is not ours), read at
// offsets the caller has checked with has().
class OrderedBytes {
 public:
  OrderedBytes(std::string_view bytes, bool swap) : bytes_(bytes), swap_(swap) {}
  bool has(size_t offset, size_t size) const {
    return offset <= bytes_.size() && bytes_.size() - offset >= size;
  }
  uint16_t u16(size_t offset) const {
    uint16_t value = load<uint16_t>(at(offset));
    return swap_ ? __builtin_bswap16(value) : value;
  }
  uint32_t u32(size_t offset) const {
    uint32_t value = load<uint32_t>(at(offset));
    return swap_ ? __builtin_bswap32(value) : value;
  }
  uint64_t u64(size_t offset) const {
    uint64_t value = load<uint64_t>(at(offset));
    return swap_ ? __builtin_bswap64(value) : value;
  }
  std::string_view bytes() const { return bytes_; }

 private:
  const uint8_t* at(size_t offset) const { return reinterpret_cast<const uint8_t*>(bytes_.data()) + offset; }
  std::string_view bytes_;
  bool swap_;
};

class ByteReader {
 public:
  explicit ByteReader(Bytes bytes) : bytes_(bytes) {}

  size_t offset() const { return offset_; }
  size_t remaining() const { return bytes_.size() - offset_; }
  bool at_end() const { return offset_ >= bytes_.size(); }

  template <typename T>
  std::optional<T> read() {
    if (remaining() < sizeof(T)) return std::nullopt;
    T value = load<T>(bytes_.data() + offset_);
    offset_ += sizeof(T);
    return value;
  }
  // The next `size` bytes, or nullopt when fewer remain.
  std::optional<Bytes> take(size_t size) {
    if (remaining() < size) return std::nullopt;
    Bytes out = bytes_.subspan(offset_, size);
    offset_ += size;
    return out;
  }
  // perf's struct perf_header_string: u32 length (with the NUL and padding), then the bytes.
  std::optional<std::string> read_string() {
    auto len = read<uint32_t>();
    if (!len) return std::nullopt;
    auto raw = take(*len);
    if (!raw) return std::nullopt;
    std::string_view text(reinterpret_cast<const char*>(raw->data()), raw->size());
    return std::string(text.substr(0, text.find('\0')));
  }

 private:
  Bytes bytes_;
  size_t offset_ = 0;
};

// Appends values in native layout to a byte string.
class ByteWriter {
 public:
  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  void put_bytes(const void* data, size_t size) { out_.append(static_cast<const char*>(data), size); }
  void put_zeros(size_t size) { out_.append(size, '\0'); }
  // perf's do_write_string: the length rounded up to 64 with the NUL counted, then the padded text.
  void put_string(std::string_view text) {
    uint32_t padded = static_cast<uint32_t>(align_up(text.size() + 1, kNameAlign));
    put(padded);
    out_.append(text);
    put_zeros(padded - text.size());
  }
  size_t size() const { return out_.size(); }
  std::string& str() { return out_; }

  static size_t align_up(size_t value, size_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
  }

 private:
  std::string out_;
};

}  // namespace sonde
