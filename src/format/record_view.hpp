#pragma once
// One record of a perf.data stream, as a view over bytes someone else owns (the file mapping,
// or a tokenizer's buffer for records that straddled a read or came out of a COMPRESSED record).
#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>

#include "base/bytes.hpp"

namespace sonde::perfdata {

struct RecordView {
  perf_event_header header{};
  // The whole record, header included. For HEADER_TRACING_DATA this also covers the blob that
  // follows the record outside header.size.
  Bytes bytes;
  // Where the record starts in the file or stream; for a record that came out of a COMPRESSED
  // record, where that COMPRESSED record starts.
  uint64_t offset = 0;

  uint32_t type() const { return header.type; }
  uint16_t misc() const { return header.misc; }
  // Where the record was taken: PERF_RECORD_MISC_KERNEL, _USER, _HYPERVISOR, _GUEST_*.
  uint8_t cpumode() const { return static_cast<uint8_t>(header.misc & PERF_RECORD_MISC_CPUMODE_MASK); }
  // The bytes after the header, up to header.size.
  Bytes payload() const {
    return bytes.subspan(sizeof(perf_event_header), header.size - sizeof(perf_event_header));
  }
};

// The record at `data` (`size` bytes, its header's size): a drained ring buffer's or a synthesized one.
inline RecordView record_view_at(const void* data, size_t size) {
  RecordView record;
  std::memcpy(&record.header, data, sizeof record.header);
  record.bytes = Bytes(static_cast<const uint8_t*>(data), size);
  return record;
}

}  // namespace sonde::perfdata
