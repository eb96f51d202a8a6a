#include "session/session.hpp"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <deque>
#include <exception>
#include <optional>
#include <thread>

#include "base/progress.hpp"
#include "format/build_ids.hpp"
#include "format/perf_format.hpp"
#include "perfdata/kernel_records.hpp"
#include "session/batch_channel.hpp"
#include "session/ordered_records.hpp"
#include "session/side_band.hpp"

namespace sonde::session {

namespace {

// What reading the file in order gives, in the order the visitor must see it.
struct ReadStep {
  enum class Kind : uint8_t {
    deliver,  // a record, in timestamp order: applied to the machine, then visited
    as_read,  // perf's own records (FINISHED_ROUND included): visited where they were read
    release,  // the mapped bytes before record.offset may leave memory
  };
  Kind kind;
  perfdata::RecordView record;
};

}  // namespace

struct Session::State {
  perfdata::PerfDataReader reader;
  Machine machine;
  SessionStats stats;
  UserStackUnwinder* unwinder = nullptr;
  bool locate_callchains = true;
  bool read_ahead_allowed = true;
  bool sort_by_time = true;    // false: every record delivered as it is read (perf's ordered_events off)
  std::string progress_label;  // empty: no progress line
  std::optional<Progress> progress;  // during process()
  uint64_t steps_run = 0;
  perfdata::Sample sample_;         // reused for every sample
  std::vector<Location> callchain;  // reused for every sample
  size_t unwound_from = 0;          // of `callchain`
  bool build_ids_applied = false;
  Diagnostics* diagnostics;       // the reader's warnings and the undecodable samples'
  std::string first_undecodable;  // why the first undecodable sample could not be read
  uint64_t unknown_records = 0;   // of types no perf up to now writes: skipped
  std::string first_unknown_record;

  State(perfdata::PerfDataReader r, Diagnostics& d) : reader(std::move(r)), diagnostics(&d) {}

  void count_undecodable(std::string reason) {
    if (stats.undecodable_samples++ == 0) first_undecodable = std::move(reason);
  }

  void apply_build_ids() {
    if (build_ids_applied || !reader.features().build_ids) return;
    build_ids_applied = true;
    for (const auto& entry : *reader.features().build_ids)
      machine.add_build_id(entry.filename, format::build_id_hex(entry.build_id));
  }

  // The record's timestamp, or nullopt when it has none (delivered at once, as perf does).
  std::optional<uint64_t> timestamp(const perfdata::RecordView& record) {
    const perfdata::EventAttr* attr = reader.attrs().for_record(record);
    if (attr == nullptr || !(attr->attr.sample_type & PERF_SAMPLE_TIME)) return std::nullopt;
    if (record.type() == PERF_RECORD_SAMPLE) return perfdata::sample_time(record, attr->attr);
    if (!attr->attr.sample_id_all) return std::nullopt;
    auto id = perfdata::decode_sample_id(record, attr->attr);
    if (!id || !id->present) return std::nullopt;
    return id->time;
  }

  void build_callchain(const Thread& thread, const perfdata::Sample& sample, uint8_t sample_cpumode) {
    callchain.clear();
    if (sample.has(PERF_SAMPLE_CALLCHAIN) && !sample.callchain.empty()) {
      uint8_t cpumode = PERF_RECORD_MISC_USER;
      for (size_t i = 0; i < sample.callchain.size(); ++i) {
        uint64_t ip = sample.callchain[i];
        if (ip >= PERF_CONTEXT_MAX) {
          cpumode = context_cpumode(ip, cpumode);
          continue;
        }
        callchain.push_back(machine.locate(thread, cpumode, ip));
      }
    }
    bool has_user_stack = sample.has(PERF_SAMPLE_REGS_USER) && sample.has(PERF_SAMPLE_STACK_USER);
    bool unwinding = unwinder != nullptr && has_user_stack && sample.regs_user.abi != 0;
    unwound_from = callchain.size();
    if (unwinding) unwinder->unwind(machine, thread, sample, callchain);
    if (callchain.empty()) callchain.push_back(machine.locate(thread, sample_cpumode, sample.ip));
    if (!unwinding) unwound_from = callchain.size();
  }

  void deliver_sample(const perfdata::RecordView& record, SessionVisitor& visitor) {
    const perfdata::EventAttr* attr = reader.attrs().for_record(record);
    if (attr == nullptr) {
      count_undecodable(fmt::format("SAMPLE record at offset {:#x}: its sample id names no event of the file",
                                    record.offset));
      return;
    }
    if (auto decoded = perfdata::decode_sample_into(record, attr->attr, sample_); !decoded) {
      count_undecodable(decoded.error().message);
      return;
    }
    stats.samples++;
    Thread& thread = machine.thread(static_cast<int32_t>(sample_.pid), static_cast<int32_t>(sample_.tid));
    uint8_t cpumode = record.cpumode();
    if (locate_callchains || unwinder != nullptr) {
      build_callchain(thread, sample_, cpumode);
      for (Location& loc : callchain) {
        if (loc.dso != nullptr) loc.dso->hit = true;
      }
    } else {
      callchain.clear();
      unwound_from = 0;
    }
    size_t index = static_cast<size_t>(attr - reader.attrs().events().data());
    SampleEvent event{record, sample_, *attr, index, thread, cpumode, callchain, unwound_from};
    visitor.on_sample(event);
  }

  void apply_side_band(const perfdata::RecordView& record) {
    session::apply_side_band(machine, record, stats);
  }

  Result<void> deliver(const perfdata::RecordView& record, SessionVisitor& visitor) {
    if (record.type() == PERF_RECORD_SAMPLE) {
      deliver_sample(record, visitor);
      return {};
    }
    apply_side_band(record);
    const perfdata::EventAttr* attr = reader.attrs().for_record(record);
    perfdata::SampleId id;
    if (attr != nullptr && record.type() < perfdata::PERF_RECORD_USER_TYPE_START) {
      if (auto decoded = perfdata::decode_sample_id(record, attr->attr)) id = *decoded;
    }
    return visitor.on_record(record, attr, id);
  }

  // Reads every record in file order and orders them as perf's ordered events do, handing each
  // step to `emit`. `keep(record, copy)` may swap a record the reader would overwrite for a
  // lasting copy; `copy` then says whether the ordering queue must still copy it.
  template <typename Emit, typename Keep>
  uint64_t read_in_order(Emit&& emit, Keep&& keep);
  // The same with the reading on a second thread; this one runs the steps.
  // Fails with the visitor's error when it stopped the replay.
  Result<uint64_t> read_ahead(SessionVisitor& visitor);
  Result<void> run(const ReadStep& step, SessionVisitor& visitor);
};

Session::Session(std::unique_ptr<State> state) : state_(std::move(state)) {}
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

Result<Session> Session::open(const std::string& path) {
  static Diagnostics dropped([](const Diagnostics::Message&) {});
  return open(path, dropped);
}

Result<Session> Session::open(const std::string& path, Diagnostics& diagnostics) {
  auto reader = perfdata::PerfDataReader::open(path, diagnostics);
  if (!reader) return tl::unexpected(reader.error());
  auto state = std::make_unique<State>(std::move(*reader), diagnostics);
  state->apply_build_ids();
  return Session(std::move(state));
}

perfdata::PerfDataReader& Session::reader() { return state_->reader; }
Machine& Session::machine() { return state_->machine; }
const SessionStats& Session::stats() const { return state_->stats; }
void Session::set_unwinder(UserStackUnwinder* unwinder) { state_->unwinder = unwinder; }
void Session::set_locate_callchains(bool locate) { state_->locate_callchains = locate; }
void Session::show_progress(std::string label) { state_->progress_label = std::move(label); }
void Session::set_read_ahead(bool read_ahead) { state_->read_ahead_allowed = read_ahead; }
void Session::set_ordered(bool ordered) { state_->sort_by_time = ordered; }

template <typename Emit, typename Keep>
uint64_t Session::State::read_in_order(Emit&& emit, Keep&& keep) {
  State& s = *this;
  OrderedRecords ordered;
  uint64_t records = 0;
  uint64_t previous_round = 0;
  auto deliver = [&](const perfdata::RecordView& record) { emit(ReadStep{ReadStep::Kind::deliver, record}); };
  for (const perfdata::RecordView& read : s.reader.records(*s.diagnostics)) {
    records++;
    bool copy = !s.reader.maps(read);
    perfdata::RecordView record = keep(read, copy);
    if (record.type() == perfdata::PERF_RECORD_FINISHED_ROUND) {
      emit(ReadStep{ReadStep::Kind::as_read, record});  // before the round it closes is delivered
      ordered.finished_round(deliver);
      // What came before the previous round has been delivered: its pages may go (RSS stays
      // flat over a large file; a record still queued would just be read from the file again).
      perfdata::RecordView mark;
      mark.offset = previous_round;
      emit(ReadStep{ReadStep::Kind::release, mark});
      previous_round = record.offset;
      continue;
    }
    if (record.type() >= perfdata::PERF_RECORD_USER_TYPE_START) {
      emit(ReadStep{ReadStep::Kind::as_read, record});
      continue;
    }
    // perf delivers a record stamped 0 (a synthesized one) or all-ones at once, unqueued.
    if (auto time = s.sort_by_time ? s.timestamp(record) : std::nullopt;
        time && *time != 0 && *time != UINT64_MAX) {
      ordered.push(record, *time, copy);
    } else {
      deliver(record);
    }
  }
  ordered.flush_all(deliver);
  return records;
}

Result<void> Session::State::run(const ReadStep& step, SessionVisitor& visitor) {
  if (progress && ++steps_run % 4096 == 0) {
    // How far through the data section (a pipe's size is unknown: the records are counted).
    const perfdata::FileSection& data = reader.header().data;
    if (reader.is_pipe() || data.size == 0)
      progress->update(steps_run, 0);
    else
      progress->update(step.record.offset > data.offset ? step.record.offset - data.offset : 0, data.size);
  }
  if (step.kind != ReadStep::Kind::release && !perfdata::is_known_record_type(step.record.type())) {
    // A newer perf's record, or damage: either way nothing here can read it.
    if (unknown_records++ == 0)
      first_unknown_record = fmt::format("type {} at offset {:#x}", step.record.type(), step.record.offset);
    return {};
  }
  switch (step.kind) {
    case ReadStep::Kind::deliver:
      return deliver(step.record, visitor);
    case ReadStep::Kind::as_read:
      reader.absorb(step.record);
      if (step.record.type() != perfdata::PERF_RECORD_FINISHED_ROUND)
        apply_build_ids();  // pipe mode: features come as records
      return visitor.on_record(step.record, nullptr, {});
    case ReadStep::Kind::release:
      reader.release_before(step.record.offset);
      return {};
  }
  return {};
}

Result<void> Session::process(SessionVisitor& visitor) {
  State& s = *state_;
  if (!s.progress_label.empty()) s.progress.emplace(s.progress_label);
  s.steps_run = 0;
  struct EraseProgress {
    std::optional<Progress>& progress;
    ~EraseProgress() { progress.reset(); }
  } erase_progress{s.progress};
  // A mapped file is read ahead on a second thread: splitting records out, timestamping and
  // ordering them overlaps with the visitor's work. Pipes and compressed files, whose records
  // live in buffers the reader reuses, are read on this thread.
  bool read_ahead = s.read_ahead_allowed && !s.reader.is_pipe() &&
                    !s.reader.has_feature(perfdata::HEADER_COMPRESSED) &&
                    std::thread::hardware_concurrency() > 1;
  if (!read_ahead) {
    // A visitor's failure leaves the reading loop as an exception, caught here.
    struct Stopped {
      Error error;
    };
    auto run_now = [&](const ReadStep& step) {
      if (auto ran = s.run(step, visitor); !ran) throw Stopped{std::move(ran.error())};
    };
    auto as_is = [](const perfdata::RecordView& record, bool&) { return record; };
    try {
      s.stats.records += s.read_in_order(run_now, as_is);
    } catch (Stopped& stopped) {
      return tl::unexpected(std::move(stopped.error));
    }
  } else {
    auto records = s.read_ahead(visitor);
    if (!records) return tl::unexpected(records.error());
    s.stats.records += *records;
  }
  if (s.reader.error()) return tl::unexpected(*s.reader.error());
  // perf stops at a sample it cannot read; the rest are still worth showing, with the damage named.
  if (s.stats.undecodable_samples > 0 && s.stats.samples == 0)
    return failf("none of the {} samples could be read; the first: {}", s.stats.undecodable_samples,
                 s.first_undecodable);
  if (s.stats.undecodable_samples > 0)
    s.diagnostics->warningf("{} of {} samples could not be read and are left out; the first: {}",
                            s.stats.undecodable_samples, s.stats.undecodable_samples + s.stats.samples,
                            s.first_undecodable);
  if (s.unknown_records > 0)
    s.diagnostics->notef("{} records of types sonde does not know were skipped; the first: {}",
                         s.unknown_records, s.first_unknown_record);
  return {};
}

Result<uint64_t> Session::State::read_ahead(SessionVisitor& visitor) {
  static constexpr size_t kBatch = 4096;
  BatchChannel<ReadStep> channel(8);
  // Records the reader would overwrite (a COMPRESSED record's contents, never expected in a
  // file without the compression feature) are copied here and live until the end.
  std::deque<std::unique_ptr<uint8_t[]>> kept;
  reader.set_absorb_while_reading(false);
  uint64_t records = 0;
  std::exception_ptr failure;
  std::thread reader_thread([&] {
    try {
      std::vector<ReadStep> batch;
      batch.reserve(kBatch);
      struct Cancelled {};
      auto emit = [&](const ReadStep& step) {
        batch.push_back(step);
        // A record that changes the attrs or features is taken in by the visiting thread
        // before anything after it is read.
        bool barrier = step.kind == ReadStep::Kind::as_read &&
                       perfdata::PerfDataReader::changes_header(step.record.type());
        if (batch.size() < kBatch && !barrier) return;
        if (!channel.put(batch) || (barrier && !channel.wait_for_signal())) throw Cancelled{};
      };
      auto keep = [&](const perfdata::RecordView& record, bool& copy) {
        if (!copy) return record;
        copy = false;
        kept.push_back(std::make_unique<uint8_t[]>(record.bytes.size()));
        std::memcpy(kept.back().get(), record.bytes.data(), record.bytes.size());
        perfdata::RecordView lasting = record;
        lasting.bytes = sonde::Bytes(kept.back().get(), record.bytes.size());
        return lasting;
      };
      try {
        records = read_in_order(emit, keep);
        if (!batch.empty()) channel.put(batch);
      } catch (const Cancelled&) {
        // The visiting thread has stopped; so does the reading.
      }
    } catch (...) {
      failure = std::current_exception();
    }
    channel.close();
  });
  // The reader stops and is joined however the visitor leaves (an exception included).
  struct Join {
    BatchChannel<ReadStep>& channel;
    std::thread& thread;
    perfdata::PerfDataReader& reader;
    ~Join() {
      channel.cancel();
      thread.join();
      reader.set_absorb_while_reading(true);
    }
  };
  Result<void> visited;
  {
    Join join{channel, reader_thread, reader};
    std::vector<ReadStep> batch;
    while (visited && channel.take(batch)) {
      for (const ReadStep& step : batch) {
        visited = run(step, visitor);
        if (!visited) break;
        if (step.kind == ReadStep::Kind::as_read &&
            perfdata::PerfDataReader::changes_header(step.record.type()))
          channel.signal();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
  if (!visited) return tl::unexpected(visited.error());
  return records;
}

std::string event_name(const perfdata::EventAttr& event) {
  if (!event.name.empty()) return event.name;
  static constexpr std::array<const char*, 10> hardware = {
      "cycles",        "instructions", "cache-references",        "cache-misses",           "branches",
      "branch-misses", "bus-cycles",   "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles"};
  static constexpr std::array<const char*, 12> software = {
      "cpu-clock",        "task-clock",   "page-faults",  "context-switches",
      "cpu-migrations",   "minor-faults", "major-faults", "alignment-faults",
      "emulation-faults", "dummy",        "bpf-output",   "cgroup-switches"};
  const perf_event_attr& attr = event.attr;
  if (attr.type == PERF_TYPE_HARDWARE && attr.config < hardware.size()) return hardware[attr.config];
  if (attr.type == PERF_TYPE_SOFTWARE && attr.config < software.size()) return software[attr.config];
  return fmt::format("unknown-{}:{:#x}", attr.type, attr.config);
}

}  // namespace sonde::session
