#pragma once
// perf's ordered-events queue: records are delivered in timestamp order, which the ring
// buffers of different CPUs do not give in file order. Like perf, a FINISHED_ROUND flushes
// every queued record up to the highest timestamp seen before the previous round ended, so
// memory holds about two rounds; the end of the file flushes the rest. Records whose bytes may
// live in a buffer the reader reuses (pipes, COMPRESSED records) are copied in; those of a
// mapped file are kept as views.
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "format/record_view.hpp"

namespace sonde::session {

class OrderedRecords {
 public:
  using Deliver = std::function<void(const perfdata::RecordView&)>;

  // `copy`: the record's bytes will not outlive this call (a reused buffer).
  void push(const perfdata::RecordView& record, uint64_t time, bool copy = true);
  // A FINISHED_ROUND: delivers what is safe to deliver.
  void finished_round(const Deliver& deliver);
  // The end of the input: delivers everything left.
  void flush_all(const Deliver& deliver);
  // A live reader's alternative to rounds: delivers what is stamped `limit` or earlier.
  void flush_up_to_time(uint64_t limit, const Deliver& deliver) { flush_up_to(limit, deliver); }
  uint64_t newest_time() const { return max_time_; }
  size_t queued() const { return queue_.size(); }

 private:
  struct Chunk {
    std::unique_ptr<uint8_t[]> bytes;
    size_t used = 0;
    size_t live = 0;  // queued records still in this chunk
  };
  struct Entry {
    uint64_t time;
    uint32_t chunk;  // kNoChunk: a view of the file mapping
    perfdata::RecordView view;
  };
  void flush_up_to(uint64_t limit, const Deliver& deliver);
  uint32_t copy_in(const perfdata::RecordView& record, perfdata::RecordView& copy);

  static constexpr uint32_t kNoChunk = UINT32_MAX;
  std::vector<Entry> queue_;                          // in push order
  std::vector<std::pair<uint64_t, uint32_t>> ready_;  // (time, place in queue_) being flushed
  std::vector<Chunk> chunks_;                         // index = Entry::chunk; freed chunks keep their slot
  std::unique_ptr<uint8_t[]> spare_;                  // a freed chunk's bytes, for the next one
  uint64_t max_time_ = 0;                             // highest timestamp pushed so far
  uint64_t next_limit_ = 0;                           // flush limit for the next FINISHED_ROUND
  bool have_limit_ = false;
};

}  // namespace sonde::session
