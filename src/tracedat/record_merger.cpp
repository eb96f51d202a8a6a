#include "tracedat/record_merger.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
extern "C" {  // kbuffer.h has no C++ guard of its own
#include <traceevent/kbuffer.h>
}

#include "format/tep_payload.hpp"

namespace sonde::tracedat {

struct RecordMerger::Stream {
  size_t buffer = 0;
  int cpu = 0;
  std::span<const uint8_t> pages;
  size_t next_page = 0;      // offset of the page to load next
  size_t page_offset = 0;    // offset of the loaded page
  uint64_t file_offset = 0;  // where the CPU's data starts, as trace-cmd report --stat shows it
  kbuffer* kbuf = nullptr;
  std::vector<uint8_t> page;  // the loaded page, padded
  tep_record record{};
  bool has_record = false;
  bool ended = false;
  ~Stream() {
    if (kbuf) kbuffer_free(kbuf);
  }
};

RecordMerger::RecordMerger(const TraceDatReader& reader) : reader_(reader) {
  tep_handle* tep = reader.tep();
  int long_size = tep_get_header_page_size(tep);
  long_size_ = long_size == 4 ? 4 : 8;
  auto kbuffer_long = long_size == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8;
  for (size_t b = 0; b < reader.buffers().size(); ++b) {
    for (const auto& cpu : reader.buffers()[b].cpus) {
      auto stream = std::make_unique<Stream>();
      stream->buffer = b;
      stream->cpu = cpu.cpu;
      stream->pages = cpu.pages;
      stream->file_offset = cpu.shown_offset;
      stream->kbuf = kbuffer_alloc(kbuffer_long, KBUFFER_ENDIAN_LITTLE);
      if (stream->kbuf && tep_is_old_format(tep)) kbuffer_set_old_format(stream->kbuf);
      // Zeros after each page: a corrupt record's 16-bit __data_loc offsets stay inside the buffer.
      stream->page.assign(reader.page_size() + kPayloadPadding, 0);
      // trace-cmd writes each CPU's pages from a page boundary: anywhere else, the table is wrong
      // and every page read from there would be garbage.
      if (cpu.shown_offset % reader.page_size() != 0) {
        problems_.push_back(
            fmt::format("CPU {}: its data offset {:#x} is not on a page boundary ({}-byte pages): the file's "
                        "CPU table is "
                        "damaged, and CPU {} is not read",
                        cpu.cpu, cpu.shown_offset, reader.page_size(), cpu.cpu));
        stream->ended = true;
      }
      if (!stream->ended && (!stream->kbuf || !load_page(*stream))) stream->ended = true;
      streams_.push_back(std::move(stream));
    }
  }
}

RecordMerger::~RecordMerger() = default;

bool RecordMerger::load_page(Stream& stream) {
  size_t page_size = reader_.page_size();
  if (stream.next_page >= stream.pages.size()) return false;
  size_t length = std::min(page_size, stream.pages.size() - stream.next_page);
  std::memcpy(stream.page.data(), stream.pages.data() + stream.next_page, length);
  std::memset(stream.page.data() + length, 0, page_size - length);
  stream.page_offset = stream.next_page;
  stream.next_page += page_size;
  // The page header's commit word says how much data follows; libtraceevent's kbuffer walks it
  // without looking at the page's size, so a damaged one is refused before the load.
  size_t header_size = 8 + long_size_;
  uint64_t commit = 0;
  std::memcpy(&commit, stream.page.data() + 8, long_size_);
  uint64_t data_size = commit & ((1u << 27) - 1);  // the missed-events flags are above
  if (data_size > page_size - header_size) {
    problems_.push_back(
        fmt::format("CPU {}: corrupt page at offset {:#x}: its header says {} bytes of data, "
                    "more than its {} (the rest of the CPU's data is not read)",
                    stream.cpu, stream.file_offset + stream.page_offset, data_size, page_size - header_size));
    return false;
  }
  kbuffer_load_subbuffer(stream.kbuf, stream.page.data());
  if (static_cast<size_t>(kbuffer_subbuffer_size(stream.kbuf)) > page_size) {
    // trace-cmd stops reading the CPU at such a page ("bad page read").
    problems_.push_back(fmt::format("CPU {}: corrupt page at offset {:#x}: data size {} exceeds the page",
                                    stream.cpu, stream.file_offset + stream.page_offset,
                                    kbuffer_subbuffer_size(stream.kbuf)));
    return false;
  }
  return true;
}

bool RecordMerger::peek(Stream& stream) {
  while (!stream.ended) {
    unsigned long long ts = 0;
    void* data = kbuffer_read_event(stream.kbuf, &ts);
    if (!data) {
      if (!load_page(stream)) stream.ended = true;
      continue;
    }
    int size = kbuffer_event_size(stream.kbuf);
    auto* start = static_cast<uint8_t*>(data);
    if (size < kCommonFieldsSize || start < stream.page.data() ||
        start + size > stream.page.data() + reader_.page_size()) {
      problems_.push_back(fmt::format("CPU {}: corrupt event in the page at offset {:#x}", stream.cpu,
                                      stream.file_offset + stream.page_offset));
      stream.ended = true;
      break;
    }
    tep_record& r = stream.record;
    r.ts = reader_.adjust_timestamp(ts);
    r.offset = stream.page_offset + static_cast<unsigned>(kbuffer_curr_offset(stream.kbuf));
    r.missed_events = kbuffer_missed_events(stream.kbuf);
    r.record_size = kbuffer_curr_size(stream.kbuf);
    r.size = size;
    r.data = data;
    r.cpu = stream.cpu;
    r.ref_count = 1;
    r.locked = 1;
    r.priv = nullptr;
    kbuffer_next_event(stream.kbuf, nullptr);
    stream.has_record = true;
    return true;
  }
  stream.has_record = false;
  return false;
}

const tep_record* RecordMerger::next(size_t& buffer) {
  if (pending_) {
    pending_->has_record = false;
    pending_ = nullptr;
  }
  Stream* best = nullptr;
  for (auto& stream : streams_) {
    if (!stream->has_record && !peek(*stream)) continue;
    if (!best || stream->record.ts < best->record.ts) best = stream.get();
  }
  if (!best) return nullptr;
  pending_ = best;
  buffer = best->buffer;
  return &best->record;
}

}  // namespace sonde::tracedat
