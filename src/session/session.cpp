#include "session/session.hpp"

#include <array>

#include <fmt/format.h>

#include "capture/build_ids.hpp"
#include "perfdata/format.hpp"
#include "perfdata/kernel_records.hpp"
#include "session/ordered_records.hpp"

namespace sonde::session {

namespace {

uint8_t cpumode_of(const perfdata::RecordView& record) {
  return static_cast<uint8_t>(record.misc() & PERF_RECORD_MISC_CPUMODE_MASK);
}

}  // namespace

struct Session::State {
  perfdata::PerfDataReader reader;
  Machine machine;
  SessionStats stats;
  UserStackUnwinder* unwinder = nullptr;
  bool locate_callchains = true;
  std::vector<Location> callchain;  // reused for every sample
  size_t unwound_from = 0;          // of `callchain`
  bool build_ids_applied = false;

  explicit State(perfdata::PerfDataReader r) : reader(std::move(r)) {}

  void apply_build_ids() {
    if (build_ids_applied || !reader.features().build_ids) return;
    build_ids_applied = true;
    for (const auto& entry : *reader.features().build_ids) machine.add_build_id(entry.filename, capture::build_id_hex(entry.build_id));
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
      stats.undecodable_samples++;
      return;
    }
    auto sample = perfdata::decode_sample(record, attr->attr);
    if (!sample) {
      stats.undecodable_samples++;
      return;
    }
    stats.samples++;
    Thread& thread = machine.thread(static_cast<int32_t>(sample->pid), static_cast<int32_t>(sample->tid));
    uint8_t cpumode = cpumode_of(record);
    if (locate_callchains || unwinder != nullptr) {
      build_callchain(thread, *sample, cpumode);
      for (Location& loc : callchain) {
        if (loc.dso != nullptr) loc.dso->hit = true;
      }
    } else {
      callchain.clear();
      unwound_from = 0;
    }
    size_t index = static_cast<size_t>(attr - reader.attrs().events().data());
    SampleEvent event{record, *sample, *attr, index, thread, cpumode, callchain, unwound_from};
    visitor.on_sample(event);
  }

  void apply_side_band(const perfdata::RecordView& record) {
    switch (record.type()) {
      case PERF_RECORD_COMM:
        if (auto comm = perfdata::CommRecord::decode(record)) machine.apply_comm(*comm);
        break;
      case PERF_RECORD_FORK:
        if (auto fork = perfdata::ForkExitRecord::decode(record)) machine.apply_fork(*fork);
        break;
      case PERF_RECORD_EXIT:
        if (auto exit = perfdata::ForkExitRecord::decode(record)) machine.apply_exit(*exit);
        break;
      case PERF_RECORD_MMAP:
        if (auto mmap = perfdata::MmapRecord::decode(record)) {
          machine.apply_mmap(static_cast<int32_t>(mmap->pid), static_cast<int32_t>(mmap->tid), mmap->addr, mmap->len,
                             mmap->pgoff, mmap->filename, PROT_EXEC_BIT, 0, cpumode_of(record), {});
        }
        break;
      case PERF_RECORD_MMAP2:
        if (auto mmap = perfdata::Mmap2Record::decode(record)) {
          std::string build_id =
              mmap->has_build_id ? capture::build_id_hex(std::span<const uint8_t>(mmap->build_id, mmap->build_id_size)) : std::string();
          machine.apply_mmap(static_cast<int32_t>(mmap->pid), static_cast<int32_t>(mmap->tid), mmap->addr, mmap->len,
                             mmap->pgoff, mmap->filename, mmap->prot, mmap->flags, cpumode_of(record), build_id);
        }
        break;
      case PERF_RECORD_LOST:
        if (auto lost = perfdata::LostRecord::decode(record)) stats.lost_events += lost->lost;
        break;
      case PERF_RECORD_LOST_SAMPLES:
        if (auto lost = perfdata::LostSamplesRecord::decode(record)) stats.lost_samples += lost->lost;
        break;
      default:
        break;
    }
  }

  void deliver(const perfdata::RecordView& record, SessionVisitor& visitor) {
    if (record.type() == PERF_RECORD_SAMPLE) {
      deliver_sample(record, visitor);
      return;
    }
    apply_side_band(record);
    const perfdata::EventAttr* attr = reader.attrs().for_record(record);
    perfdata::SampleId id;
    if (attr != nullptr && record.type() < perfdata::PERF_RECORD_USER_TYPE_START) {
      if (auto decoded = perfdata::decode_sample_id(record, attr->attr)) id = *decoded;
    }
    visitor.on_record(record, attr, id);
  }

  static constexpr uint32_t PROT_EXEC_BIT = 4;  // PROT_EXEC: MMAP records only announce executable maps
};

Session::Session(std::unique_ptr<State> state) : state_(std::move(state)) {}
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

Result<Session> Session::open(const std::string& path) {
  auto reader = perfdata::PerfDataReader::open(path);
  if (!reader) return tl::unexpected(reader.error());
  auto state = std::make_unique<State>(std::move(*reader));
  state->apply_build_ids();
  return Session(std::move(state));
}

perfdata::PerfDataReader& Session::reader() { return state_->reader; }
Machine& Session::machine() { return state_->machine; }
const SessionStats& Session::stats() const { return state_->stats; }
void Session::set_unwinder(UserStackUnwinder* unwinder) { state_->unwinder = unwinder; }
void Session::set_locate_callchains(bool locate) { state_->locate_callchains = locate; }

Result<void> Session::process(SessionVisitor& visitor) {
  State& s = *state_;
  OrderedRecords ordered;
  uint64_t previous_round = 0;
  auto deliver = [&](const perfdata::RecordView& record) { s.deliver(record, visitor); };
  for (const perfdata::RecordView& record : s.reader.records()) {
    s.stats.records++;
    if (record.type() == perfdata::PERF_RECORD_FINISHED_ROUND) {
      visitor.on_record(record, nullptr, {});  // as read, before the round it closes is delivered
      ordered.finished_round(deliver);
      // What came before the previous round has been delivered: its pages may go (RSS stays
      // flat over a large file; a record still queued would just be read from the file again).
      s.reader.release_before(previous_round);
      previous_round = record.offset;
      continue;
    }
    if (record.type() >= perfdata::PERF_RECORD_USER_TYPE_START) {
      s.apply_build_ids();  // pipe mode: the features arrive as records
      visitor.on_record(record, nullptr, {});
      continue;
    }
    // perf delivers a record stamped 0 (a synthesized one) or all-ones at once, unqueued.
    if (auto time = s.timestamp(record); time && *time != 0 && *time != UINT64_MAX) {
      ordered.push(record, *time, !s.reader.maps(record));
    } else {
      deliver(record);
    }
  }
  ordered.flush_all(deliver);
  if (s.reader.error()) return tl::unexpected(*s.reader.error());
  return {};
}

std::string event_name(const perfdata::EventAttr& event) {
  if (!event.name.empty()) return event.name;
  static constexpr std::array<const char*, 10> hardware = {
      "cycles",   "instructions", "cache-references", "cache-misses", "branches", "branch-misses",
      "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles"};
  static constexpr std::array<const char*, 12> software = {
      "cpu-clock",    "task-clock",       "page-faults", "context-switches", "cpu-migrations", "minor-faults",
      "major-faults", "alignment-faults", "emulation-faults", "dummy",       "bpf-output",      "cgroup-switches"};
  const perf_event_attr& attr = event.attr;
  if (attr.type == PERF_TYPE_HARDWARE && attr.config < hardware.size()) return hardware[attr.config];
  if (attr.type == PERF_TYPE_SOFTWARE && attr.config < software.size()) return software[attr.config];
  return fmt::format("unknown-{}:{:#x}", attr.type, attr.config);
}

}  // namespace sonde::session
