#include "analysis/sched/sched_scan.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <thread>

#include "format/perf_format.hpp"
#include "format/sample.hpp"
#include "perfdata/kernel_records.hpp"
#include "session/batch_channel.hpp"

namespace sonde::analysis {

int64_t read_sched_field(const uint8_t* raw, size_t size, const SchedField& field) {
  if (field.size == 0 || field.offset + field.size > size) return 0;
  const uint8_t* at = raw + field.offset;
  switch (field.size) {
    case 1:
      return field.is_signed ? static_cast<int8_t>(at[0]) : at[0];
    case 2: {
      uint16_t v;
      std::memcpy(&v, at, 2);
      return field.is_signed ? static_cast<int16_t>(v) : v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, at, 4);
      return field.is_signed ? static_cast<int32_t>(v) : v;
    }
    default: {
      int64_t v;
      std::memcpy(&v, at, 8);
      return v;
    }
  }
}

void apply_sched_side_band(const perfdata::RecordView& record, const perfdata::SampleId& id,
                           SchedThreads& threads, SchedHandler& handler, SchedFileFacts& facts) {
  switch (record.type()) {
    case PERF_RECORD_COMM: {
      auto comm = perfdata::CommRecord::decode(record);
      if (!comm) return;
      uint32_t thread =
          threads.apply_comm(static_cast<int32_t>(comm->pid), static_cast<int32_t>(comm->tid), comm->comm);
      // A synthesized COMM's trailer is zeros, id 0 included: perf reads it with its first
      // event's layout, tid 0.
      handler.on_comm(thread, id.present ? static_cast<int32_t>(id.tid) : 0);
      return;
    }
    case PERF_RECORD_FORK: {
      auto fork = perfdata::ForkExitRecord::decode(record);
      if (!fork) return;
      uint32_t child = threads.apply_fork(static_cast<int32_t>(fork->pid), static_cast<int32_t>(fork->tid),
                                          static_cast<int32_t>(fork->ppid), static_cast<int32_t>(fork->ptid));
      handler.on_fork(child,
                      threads.findnew(static_cast<int32_t>(fork->ppid), static_cast<int32_t>(fork->ptid)));
      return;
    }
    case PERF_RECORD_EXIT: {
      auto exit = perfdata::ForkExitRecord::decode(record);
      if (exit) threads.apply_exit(static_cast<int32_t>(exit->tid));
      return;
    }
    case PERF_RECORD_LOST: {
      auto lost = perfdata::LostRecord::decode(record);
      if (!lost) return;
      facts.lost_events += lost->lost;
      ++facts.lost_chunks;
      handler.on_lost(id.time, id.cpu, lost->lost);
      return;
    }
    default:
      return;
  }
}

namespace {

// What a sample's fixed part holds, by its attr's sample_type.
struct SampleLayout {
  int32_t id_at = -1;                              // IDENTIFIER, else ID
  int32_t tid_at = -1, time_at = -1, cpu_at = -1;  // byte offsets in the payload
  int32_t callchain_at = -1;                       // the nr of PERF_SAMPLE_CALLCHAIN
  int32_t raw_at = -1;                             // after the callchain: add 8 * nr
};

SampleLayout layout_of(uint64_t type) {
  SampleLayout layout;
  int32_t at = 0;
  if (type & PERF_SAMPLE_IDENTIFIER) layout.id_at = at, at += 8;
  if (type & PERF_SAMPLE_IP) at += 8;
  if (type & PERF_SAMPLE_TID) layout.tid_at = at, at += 8;
  if (type & PERF_SAMPLE_TIME) layout.time_at = at, at += 8;
  if (type & PERF_SAMPLE_ADDR) at += 8;
  if (type & PERF_SAMPLE_ID) {
    if (layout.id_at < 0) layout.id_at = at;
    at += 8;
  }
  if (type & PERF_SAMPLE_STREAM_ID) at += 8;
  if (type & PERF_SAMPLE_CPU) layout.cpu_at = at, at += 8;
  if (type & PERF_SAMPLE_PERIOD) at += 8;
  if (type & PERF_SAMPLE_CALLCHAIN) layout.callchain_at = at, at += 8;
  if (type & PERF_SAMPLE_RAW) layout.raw_at = at;
  return layout;
}

struct NoComm {};

// One event as the merge orders it and the handlers read it: 40 bytes, 72 with the comms (only
// timehist -n and replay read them), so that the millions of them cost little memory traffic.
template <bool kComms>
struct ScanEventOf {
  uint64_t time = 0;
  uint64_t value = 0;    // prev_state, runtime, orig_cpu << 32 | dest_cpu, or a side-band copy's address
  uint32_t seq = 0;      // place in the file (modulo 2^32), for equal times
  int32_t a = 0, b = 0;  // prev_pid and next_pid, or pid
  int32_t sample_pid = 0, sample_tid = 0;
  uint16_t cpu = 0;
  uint8_t kind = 0;  // SchedKind, kSideBand or kRound
  bool has_callchain = false;
  [[no_unique_address]] std::conditional_t<kComms, std::array<char, 32>, NoComm>
      comm{};  // comm, then prev_comm
};
static_assert(sizeof(ScanEventOf<false>) == 40);

// One CPU's pending events, in (time, seq) order: a ring that doubles when full.
template <typename ScanEvent>
class CpuQueue {
 public:
  bool empty() const { return count_ == 0; }
  const ScanEvent& front() const { return ring_[head_]; }
  void pop() {
    head_ = (head_ + 1) & mask_;
    --count_;
  }
  void push(const ScanEvent& event) {
    if (count_ == ring_.size()) grow();
    size_t at = count_++;
    // A ring buffer writes in time order: an older event is rare and goes in from the back.
    while (at > 0 && slot(at - 1).time > event.time) {
      slot(at) = slot(at - 1);
      --at;
    }
    slot(at) = event;
  }

 private:
  ScanEvent& slot(size_t i) { return ring_[(head_ + i) & mask_]; }
  void grow() {
    std::vector<ScanEvent> bigger(std::max<size_t>(1024, ring_.size() * 2));
    for (size_t i = 0; i < count_; ++i) bigger[i] = slot(i);
    ring_ = std::move(bigger);
    head_ = 0;
    mask_ = ring_.size() - 1;
  }
  std::vector<ScanEvent> ring_;
  size_t head_ = 0, count_ = 0, mask_ = 0;
};
constexpr uint8_t kSideBand = 0xff;  // a COMM, FORK, EXIT or LOST record; `value` points at a copy
constexpr uint8_t kRound = 0xfe;     // a FINISHED_ROUND record

// Side-band copies that stay where they are while the reading thread adds more.
class Arena {
 public:
  char* copy(const void* data, size_t size) {
    if (chunks_.empty() || used_ + size > kChunk) {
      chunks_.push_back(std::make_unique<char[]>(std::max(kChunk, size)));
      used_ = 0;
    }
    char* at = chunks_.back().get() + used_;
    std::memcpy(at, data, size);
    used_ += size;
    return at;
  }

 private:
  static constexpr size_t kChunk = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> chunks_;
  size_t used_ = 0;
};

uint64_t load64(const uint8_t* at) {
  uint64_t v;
  std::memcpy(&v, at, 8);
  return v;
}
uint32_t load32(const uint8_t* at) {
  uint32_t v;
  std::memcpy(&v, at, 4);
  return v;
}

template <bool kComms>
class Scanner {
  using ScanEvent = ScanEventOf<kComms>;

 public:
  Scanner(perfdata::PerfDataReader& reader, const SchedScanInput& input, SchedThreads& threads,
          SchedHandler& handler, SchedFileFacts& facts)
      : reader_(reader), input_(input), threads_(threads), handler_(handler), facts_(facts) {
    for (size_t kind = 0; kind < wanted_.size(); ++kind)
      wanted_[kind] = handler.wants(static_cast<SchedKind>(kind));
    other_from_cpu_ = handler.other_from_cpu();
    const auto& events = reader.attrs().events();
    single_ = events.size() == 1;
    for (size_t i = 0; i < events.size(); ++i) {
      layouts_.push_back(layout_of(events[i].attr.sample_type));
      for (uint64_t id : events[i].ids) ids_.emplace_back(id, static_cast<uint32_t>(i));
    }
    // The kernel numbers a recording's events closely: a table by id - smallest id.
    if (!ids_.empty()) {
      auto [low, high] = std::minmax_element(ids_.begin(), ids_.end());
      if (high->first - low->first < 65536) {
        id_base_ = low->first;
        by_id_.assign(static_cast<size_t>(high->first - low->first) + 1, UINT32_MAX);
        for (const auto& [id, index] : ids_) by_id_[static_cast<size_t>(id - id_base_)] = index;
      }
    }
  }

  // Reading and decoding on a second thread when there is a second CPU, ordering and the
  // analysis on this one; batches of events between them.
  Result<void> run(Diagnostics& diagnostics) {
    if (std::thread::hardware_concurrency() < 2) {
      read(diagnostics, [this](std::vector<ScanEvent>& batch) {
        consume(batch);
        batch.clear();
        return true;
      });
    } else {
      session::BatchChannel<ScanEvent> channel(4);
      std::thread reader([&] {
        read(diagnostics, [&](std::vector<ScanEvent>& batch) { return channel.put(batch); });
        channel.close();
      });
      std::vector<ScanEvent> batch;
      while (channel.take(batch)) consume(batch);
      reader.join();
    }
    facts_.nr_events = nr_records_;
    if (reader_.error()) return tl::unexpected(*reader_.error());
    flush(UINT64_MAX);
    return {};
  }

 private:
  // The reading side: every record once, in file order.
  template <typename Put>
  void read(Diagnostics& diagnostics, Put put) {
    batch_.reserve(kBatch);
    auto records = reader_.records(diagnostics);
    auto it = records.begin();
    if (it == records.end()) return;
    const perfdata::FileSection& data = reader_.header().data;
    if (!reader_.has_feature(perfdata::HEADER_COMPRESSED) && data.size > 0 && reader_.maps(*it)) {
      // A plain file's data section is in one mapping: walked here a record at a time, without
      // the reader's general machinery (compressed records, pipes).
      const uint8_t* file = it->bytes.data() - it->offset;
      uint64_t end = data.offset + data.size;
      for (uint64_t offset = it->offset; offset + sizeof(perf_event_header) <= end;) {
        perfdata::RecordView record;
        std::memcpy(&record.header, file + offset, sizeof record.header);
        if (record.header.size < sizeof(perf_event_header) || offset + record.header.size > end) {
          diagnostics.warningf("a record at offset {} runs past the data section; the rest is not read",
                               offset);
          break;
        }
        record.bytes = Bytes(file + offset, record.header.size);
        record.offset = offset;
        if (!take(record, put)) return;
        offset += record.header.size;
      }
    } else {
      for (; it != records.end(); ++it)
        if (!take(*it, put)) return;
    }
    if (!batch_.empty()) put(batch_);
  }

  template <typename Put>
  bool take(const perfdata::RecordView& record, Put& put) {
    ++nr_records_;
    uint32_t type = record.type();
    if (type == PERF_RECORD_SAMPLE) {
      sample(record);
    } else if (type == perfdata::PERF_RECORD_FINISHED_ROUND) {
      ScanEvent round;
      round.kind = kRound;
      batch_.push_back(round);
    } else if (type == PERF_RECORD_COMM || type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT ||
               type == PERF_RECORD_LOST) {
      side_band(record);
    }
    if (record.offset > released_ + (32u << 20)) {
      released_ = record.offset;
      reader_.release_before(released_);
    }
    return batch_.size() < kBatch || put(batch_);
  }

  // The ordering side: perf's ordered events. A round's end lets out what is older than the
  // previous round's newest event; what remains waits for the next round or the end; what is
  // stamped 0 goes at once.
  void consume(const std::vector<ScanEvent>& batch) {
    for (const ScanEvent& event : batch) {
      if (event.kind == kRound) {
        flush(next_flush_);
        next_flush_ = max_time_;
      } else if (event.kind == kSideBand && (event.time == 0 || event.time == UINT64_MAX)) {
        apply(event);
      } else {
        max_time_ = std::max(max_time_, event.time);
        if (event.cpu >= queues_.size()) queues_.resize(event.cpu + 1);
        queues_[event.cpu].push(event);
      }
    }
  }

  // The sample's event: its id is where the first event's layout puts it (IDENTIFIER first, or
  // ID where every event has the same layout; can_scan_sched_file checked).
  uint32_t attr_of(const uint8_t* payload, size_t size) const {
    if (single_) return 0;
    int32_t id_at = layouts_[0].id_at;
    if (id_at < 0 || static_cast<size_t>(id_at) + 8 > size) return UINT32_MAX;
    uint64_t id = load64(payload + id_at);
    if (!by_id_.empty())
      return id >= id_base_ && id - id_base_ < by_id_.size() ? by_id_[id - id_base_] : UINT32_MAX;
    for (const auto& [known, index] : ids_)
      if (known == id) return index;
    return UINT32_MAX;
  }

  void push(ScanEvent& event) {
    event.seq = seq_++;
    batch_.push_back(event);
  }

  // Hands over the pending events up to `limit` in (time, file order), merging the CPUs' queues.
  void flush(uint64_t limit) {
    auto before = [](const ScanEvent& l, const ScanEvent& r) {
      return l.time < r.time || (l.time == r.time && l.seq < r.seq);
    };
    for (;;) {
      CpuQueue<ScanEvent>* best = nullptr;
      const ScanEvent* second = nullptr;  // the earliest head of the other queues
      for (CpuQueue<ScanEvent>& queue : queues_) {
        if (queue.empty()) continue;
        const ScanEvent& head = queue.front();
        if (best == nullptr || before(head, best->front())) {
          if (best != nullptr) second = &best->front();
          best = &queue;
        } else if (second == nullptr || before(head, *second)) {
          second = &head;
        }
      }
      if (best == nullptr || best->front().time > limit) return;
      // The best queue runs on until another queue's head comes first.
      do {
        apply(best->front());
        best->pop();
      } while (!best->empty() && best->front().time <= limit &&
               (second == nullptr || before(best->front(), *second)));
    }
  }

  void sample(const perfdata::RecordView& record) {
    Bytes payload = record.payload();
    const uint8_t* p = payload.data();
    size_t size = payload.size();
    // With IDENTIFIER first, any attr's layout finds the id; otherwise the file has one attr.
    uint32_t index = attr_of(p, size);
    if (index == UINT32_MAX || index >= input_.events.size()) return;
    const SchedEventLayout& fields = input_.events[index];
    const SampleLayout& layout = layouts_[index];
    bool wanted = fields.sched && wanted_[static_cast<size_t>(fields.kind)];
    if (!wanted && other_from_cpu_ == UINT32_MAX) return;
    // Filled in place: one event a sample, no copy.
    ScanEvent& event = batch_.emplace_back();
    event.seq = seq_++;
    if (layout.time_at >= 0 && static_cast<size_t>(layout.time_at) + 8 <= size)
      event.time = load64(p + layout.time_at);
    if (layout.cpu_at >= 0 && static_cast<size_t>(layout.cpu_at) + 4 <= size)
      event.cpu = static_cast<uint16_t>(load32(p + layout.cpu_at));
    if (layout.tid_at >= 0 && static_cast<size_t>(layout.tid_at) + 8 <= size) {
      event.sample_pid = static_cast<int32_t>(load32(p + layout.tid_at));
      event.sample_tid = static_cast<int32_t>(load32(p + layout.tid_at + 4));
    }
    if (!wanted) {
      if (event.cpu < other_from_cpu_)
        batch_.pop_back();
      else
        event.kind = static_cast<uint8_t>(SchedKind::other);
      return;
    }
    size_t raw_at = static_cast<size_t>(layout.raw_at);
    if (layout.callchain_at >= 0) {
      if (static_cast<size_t>(layout.callchain_at) + 8 > size) return batch_.pop_back();
      uint64_t nr = load64(p + layout.callchain_at);
      event.has_callchain = nr > 0;
      raw_at += nr * 8;
    }
    if (layout.raw_at < 0 || raw_at + 4 > size) return batch_.pop_back();
    uint32_t raw_size = load32(p + raw_at);
    const uint8_t* raw = p + raw_at + 4;
    if (raw_at + 4 + raw_size > size) return batch_.pop_back();
    event.kind = static_cast<uint8_t>(fields.kind);
    const SchedField* comm = nullptr;
    if (fields.kind == SchedKind::sched_switch) {
      event.a = static_cast<int32_t>(read_sched_field(raw, raw_size, fields.prev_pid));
      event.b = static_cast<int32_t>(read_sched_field(raw, raw_size, fields.next_pid));
      event.value = static_cast<uint64_t>(read_sched_field(raw, raw_size, fields.prev_state));
      comm = &fields.next_comm;
    } else {
      event.a = static_cast<int32_t>(read_sched_field(raw, raw_size, fields.pid));
      comm = &fields.comm;
      if (fields.kind == SchedKind::migrate_task) {
        auto orig = static_cast<uint32_t>(read_sched_field(raw, raw_size, fields.orig_cpu));
        auto dest = static_cast<uint32_t>(read_sched_field(raw, raw_size, fields.dest_cpu));
        event.value = static_cast<uint64_t>(orig) << 32 | dest;
      } else if (fields.kind == SchedKind::stat_runtime) {
        event.value = static_cast<uint64_t>(read_sched_field(raw, raw_size, fields.runtime));
      }
    }
    if constexpr (kComms) {
      if (comm->size != 0 && comm->offset + comm->size <= raw_size)
        std::memcpy(event.comm.data(), raw + comm->offset, std::min<size_t>(comm->size, 16));
      const SchedField& prev = fields.prev_comm;
      if (fields.kind == SchedKind::sched_switch && prev.size != 0 && prev.offset + prev.size <= raw_size)
        std::memcpy(event.comm.data() + 16, raw + prev.offset, std::min<size_t>(prev.size, 16));
    } else {
      (void)comm;
    }
  }

  void side_band(const perfdata::RecordView& record) {
    const perfdata::EventAttr* attr = reader_.attrs().for_record(record);
    perfdata::SampleId id;
    if (attr != nullptr) {
      if (auto decoded = perfdata::decode_sample_id(record, attr->attr)) id = *decoded;
    }
    ScanEvent event;
    event.kind = kSideBand;
    event.time = id.present ? id.time : 0;
    event.cpu = static_cast<uint16_t>(id.present ? id.cpu : 0);
    event.sample_pid = id.present ? static_cast<int32_t>(id.pid) : 0;
    event.sample_tid = id.present ? static_cast<int32_t>(id.tid) : 0;
    event.value = reinterpret_cast<uintptr_t>(arena_.copy(record.bytes.data(), record.header.size));
    push(event);
  }

  void apply(const ScanEvent& event) {
    if (event.kind != kSideBand) {
      SchedSample s;
      s.kind = static_cast<SchedKind>(event.kind);
      s.time = event.time;
      s.cpu = event.cpu;
      s.sample_pid = event.sample_pid;
      s.sample_tid = event.sample_tid;
      s.has_callchain = event.has_callchain;
      std::string_view comm, prev_comm;
      if constexpr (kComms) {
        comm = std::string_view(event.comm.data(), strnlen(event.comm.data(), 16));
        prev_comm = std::string_view(event.comm.data() + 16, strnlen(event.comm.data() + 16, 16));
      }
      if (s.kind == SchedKind::sched_switch) {
        s.prev_pid = event.a;
        s.next_pid = event.b;
        s.prev_state = static_cast<int64_t>(event.value);
        s.next_comm = comm;
        s.prev_comm = prev_comm;
      } else {
        s.pid = event.a;
        s.comm = comm;
        s.orig_cpu = static_cast<int32_t>(event.value >> 32);
        s.dest_cpu = static_cast<int32_t>(event.value & 0xffffffff);
        s.runtime = event.value;
      }
      handler_.on_sched(s);
      return;
    }
    perfdata::RecordView record;
    const auto* copy = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(event.value));
    std::memcpy(&record.header, copy, sizeof record.header);
    record.bytes = Bytes(copy, record.header.size);
    perfdata::SampleId id;
    id.present = true;
    id.pid = static_cast<uint32_t>(event.sample_pid);
    id.tid = static_cast<uint32_t>(event.sample_tid);
    id.time = event.time;
    id.cpu = event.cpu;
    apply_sched_side_band(record, id, threads_, handler_, facts_);
  }

  perfdata::PerfDataReader& reader_;
  const SchedScanInput& input_;
  SchedThreads& threads_;
  SchedHandler& handler_;
  SchedFileFacts& facts_;
  bool single_ = false;
  std::array<bool, 7> wanted_{};
  uint32_t other_from_cpu_ = 0;
  std::vector<SampleLayout> layouts_;
  std::vector<std::pair<uint64_t, uint32_t>> ids_;
  std::vector<uint32_t> by_id_;  // attr index by id - id_base_, when the ids are close
  uint64_t id_base_ = 0;
  static constexpr size_t kBatch = 8192;
  // The reading thread's.
  std::vector<ScanEvent> batch_;
  uint32_t seq_ = 0;
  uint64_t nr_records_ = 0, released_ = 0;
  Arena arena_;
  // The ordering thread's.
  std::vector<CpuQueue<ScanEvent>> queues_;
  uint64_t max_time_ = 0, next_flush_ = 0;
};

}  // namespace

bool can_scan_sched_file(perfdata::PerfDataReader& reader) {
  if (reader.is_pipe()) return false;
  const auto& events = reader.attrs().events();
  if (events.empty()) return false;
  uint64_t first = events[0].attr.sample_type;
  for (const auto& event : events) {
    uint64_t type = event.attr.sample_type;
    if (type & PERF_SAMPLE_READ) return false;
    // Which event a sample is: IDENTIFIER first, or ID at the same place in every event's layout.
    if (events.size() > 1 && !(type & PERF_SAMPLE_IDENTIFIER) && !((type & PERF_SAMPLE_ID) && type == first))
      return false;
  }
  return true;
}

Result<void> scan_sched_file(perfdata::PerfDataReader& reader, const SchedScanInput& input,
                             SchedThreads& threads, SchedHandler& handler, SchedFileFacts& facts,
                             Diagnostics& diagnostics) {
  if (input.keep_comms) {
    Scanner<true> scanner(reader, input, threads, handler, facts);
    return scanner.run(diagnostics);
  }
  Scanner<false> scanner(reader, input, threads, handler, facts);
  return scanner.run(diagnostics);
}

}  // namespace sonde::analysis
