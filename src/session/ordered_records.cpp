#include "session/ordered_records.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

namespace sonde::session {

namespace {
constexpr size_t kChunkSize = 4 << 20;
}

uint32_t OrderedRecords::copy_in(const perfdata::RecordView& record, perfdata::RecordView& copy) {
  size_t size = record.bytes.size();
  // The chunk being filled, emptied by a flush (a live reader's quiet moment), starts over.
  if (!chunks_.empty() && chunks_.back().bytes && chunks_.back().live == 0) chunks_.back().used = 0;
  if (chunks_.empty() || !chunks_.back().bytes || chunks_.back().used + size > kChunkSize) {
    Chunk chunk;
    // A chunk freed before is used again: a live reader (top) fills and frees one every few
    // seconds, and a fresh one costs its page faults. Not zeroed: every byte read was copied in.
    if (spare_ && size <= kChunkSize)
      chunk.bytes = std::move(spare_);
    else
      chunk.bytes = std::make_unique_for_overwrite<uint8_t[]>(std::max(kChunkSize, size));
    chunks_.push_back(std::move(chunk));
  }
  uint32_t index = static_cast<uint32_t>(chunks_.size() - 1);
  Chunk& chunk = chunks_.back();
  uint8_t* at = chunk.bytes.get() + chunk.used;
  std::memcpy(at, record.bytes.data(), size);
  chunk.used += size;
  chunk.live++;
  copy = record;
  copy.bytes = sonde::Bytes(at, size);
  return index;
}

void OrderedRecords::push(const perfdata::RecordView& record, uint64_t time, bool copy) {
  Entry entry{time, kNoChunk, record};
  if (copy) entry.chunk = copy_in(record, entry.view);
  queue_.push_back(entry);
  max_time_ = std::max(max_time_, time);
}

void OrderedRecords::flush_up_to(uint64_t limit, const Deliver& deliver) {
  // queue_ stays in push (file) order, so sorting just (time, place) of the ready records
  // gives perf's order: by time, then file order.
  ready_.clear();
  for (uint32_t i = 0; i < queue_.size(); ++i)
    if (queue_[i].time <= limit) ready_.emplace_back(queue_[i].time, i);
  std::sort(ready_.begin(), ready_.end());
  for (auto [time, place] : ready_) {
    const Entry& entry = queue_[place];
    deliver(entry.view);
    if (entry.chunk == kNoChunk) continue;
    Chunk& chunk = chunks_[entry.chunk];
    // The chunk being filled stays; an older one goes when its last record is delivered.
    if (--chunk.live == 0 && entry.chunk + 1 != chunks_.size()) {
      if (!spare_) spare_ = std::move(chunk.bytes);
      chunk.bytes.reset();
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < queue_.size(); ++i)
    if (queue_[i].time > limit) queue_[kept++] = queue_[i];
  queue_.resize(kept);
}

void OrderedRecords::finished_round(const Deliver& deliver) {
  if (have_limit_) flush_up_to(next_limit_, deliver);
  next_limit_ = max_time_;
  have_limit_ = true;
}

void OrderedRecords::flush_all(const Deliver& deliver) {
  flush_up_to(UINT64_MAX, deliver);
  chunks_.clear();
}

}  // namespace sonde::session
