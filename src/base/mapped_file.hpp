#pragma once
// A read-only memory mapping of a whole file, for zero-copy record access.
#include <string>

#include "base/bytes.hpp"
#include "base/error.hpp"

namespace sonde {

class MappedFile {
 public:
  static Result<MappedFile> open(const std::string& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  Bytes bytes() const { return {static_cast<const uint8_t*>(data_), size_}; }
  // Drops the pages of [0, end) from memory (whole pages only). They stay readable: a later
  // access reads them from the file again. Keeps a long sequential read's RSS flat.
  void release_before(size_t end);

 private:
  MappedFile(void* data, size_t size) : data_(data), size_(size) {}
  void* data_ = nullptr;
  size_t size_ = 0;
  size_t released_ = 0;
};

}  // namespace sonde
