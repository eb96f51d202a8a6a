#include "analysis/lock/lock_contention.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <optional>

#include "analysis/heatmap/tracepoint_field.hpp"
#include "base/bytes.hpp"
#include "base/flat_hash_map.hpp"
#include "session/session.hpp"
#include "session/tracepoint_formats.hpp"
#include "symbols/kernel_symbols.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::analysis {

namespace {

constexpr uint64_t kGoldenRatio64 = 0x61C8864680B583EBull;  // the kernel's hash_long multiplier

struct NamedField {
  std::string_view name;
  LockField field;
};
constexpr NamedField kFieldNames[] = {
    {"acquired", LockField::acquired}, {"contended", LockField::contended},
    {"avg_wait", LockField::avg_wait}, {"wait_total", LockField::wait_total},
    {"wait_max", LockField::wait_max}, {"wait_min", LockField::wait_min}};

// A frame as perf's lock code sees it: whether a symbol names it, whether it lies in the
// scheduler's or the lock code's text, and its "sym+0xoff".
struct FrameName {
  bool has_symbol = false;
  bool lock_code = false;
  std::string label;
};

enum class SequenceState : uint8_t { uninitialized, contended, acquired };
struct Sequence {
  SequenceState state = SequenceState::uninitialized;
  uint64_t start = 0;
};

// Which of a file's events are the contention tracepoints, and where their fields are (a pipe's
// arrive with its first records).
struct LockEvents {
  std::vector<int> roles;  // by event index: 1 contention_begin, 2 contention_end, 0 neither
  TracepointNumber begin_addr, begin_flags, end_addr;
  bool has_tracing_data = false, has_begin = false;
};

LockEvents lock_events(perfdata::PerfDataReader& reader) {
  LockEvents events;
  Bytes blob = reader.tracing_data();
  events.has_tracing_data = !blob.empty();
  auto formats = events.has_tracing_data ? session::TracepointFormats::parse(blob)
                                         : Result<session::TracepointFormats>(failf("no tracing data"));
  for (const auto& attr : reader.attrs().events()) {
    int role = 0;
    const tep_event* format =
        attr.attr.type == PERF_TYPE_TRACEPOINT && formats ? formats->find(attr.attr.config) : nullptr;
    if (format != nullptr) {
      std::string name = session::TracepointFormats::qualified_name(format);
      if (name == "lock:contention_begin") {
        role = 1;
        events.has_begin = true;
        events.begin_addr = tracepoint_number(format, "lock_addr");
        events.begin_flags = tracepoint_number(format, "flags");
      } else if (name == "lock:contention_end") {
        role = 2;
        events.end_addr = tracepoint_number(format, "lock_addr");
      }
    }
    events.roles.push_back(role);
  }
  return events;
}

Result<void> check_lock_events(const LockEvents& events, const std::string& path) {
  if (!events.has_tracing_data)
    return failf("{} has no tracepoint samples; record them with 'sonde lock record'", path);
  if (!events.has_begin)
    return failf("{} has no lock:contention_begin events; record them with 'sonde lock record'", path);
  return {};
}

class ContentionPass : public session::SessionVisitor {
 public:
  ContentionPass(const LockOptions& options, perfdata::PerfDataReader& reader,
                 const session::Machine& machine, Diagnostics& diagnostics)
      : options_(options),
        reader_(reader),
        machine_(machine),
        symbolizer_(symbols::SymbolizerOptions{.kallsyms = options.kallsyms}, &diagnostics) {}

  void on_sample(const session::SampleEvent& sample) override {
    const std::vector<int>& roles = events().roles;
    if (sample.event_index >= roles.size() || roles[sample.event_index] == 0) return;
    if (roles[sample.event_index] == 1)
      begin(sample);
    else
      end(sample);
  }

  // The file's contention events, found at the first sample (or before the pass).
  const LockEvents& events() {
    if (!events_) events_ = lock_events(reader_);
    return *events_;
  }

  LockContention finish() {
    // perf walks its 4096 hash buckets in order, each bucket's list newest first, into a tree
    // where the larger goes left and ties right.
    std::vector<size_t> order(stats_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto bucket = [&](size_t i) { return static_cast<uint32_t>((stats_[i].key * kGoldenRatio64) >> 52); };
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      uint32_t ba = bucket(a), bb = bucket(b);
      return ba != bb ? ba < bb : a > b;
    });
    const LockField key = options_.key;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return stats_[a].value(key) > stats_[b].value(key); });
    LockContention result;
    result.bad_histogram = bad_histogram_;
    threads_.for_each(
        [&](uint32_t tid, bool) { result.threads.emplace_back(static_cast<int32_t>(tid), comm_of(tid)); });
    std::sort(result.threads.begin(), result.threads.end());
    result.stats.reserve(order.size());
    for (size_t i : order) {
      LockStat& stat = stats_[i];
      if (options_.aggregation == LockAggregation::task) stat.name = comm_of(static_cast<uint32_t>(stat.key));
      result.stats.push_back(std::move(stat));
    }
    return result;
  }

 private:
  // perf's thread__comm_str: the last comm, ":TID" for a thread never named.
  std::string comm_of(uint32_t tid) const {
    const session::Thread* thread = machine_.find_thread(static_cast<int32_t>(tid));
    return thread != nullptr ? thread->comm : fmt::format(":{}", static_cast<int32_t>(tid));
  }

  // [start, end) of .sched.text and .spinlock.text by kallsyms' section markers, read when a
  // frame is first named (a file that fails its checks reads nothing); empty without them.
  const std::vector<std::pair<uint64_t, uint64_t>>& lock_text() {
    if (lock_text_) return *lock_text_;
    lock_text_ = kernel_lock_text(options_.kallsyms);
    return *lock_text_;
  }

  // The frames perf's thread__resolve_callchain gives: markers dropped, at most --max-stack.
  template <typename Visit>
  void for_each_frame(const session::SampleEvent& sample, Visit visit) {
    const perfdata::U64Array& chain = sample.sample.callchain;
    uint8_t cpumode = PERF_RECORD_MISC_USER;
    int frames = 0;
    for (size_t i = 0; i < chain.size() && frames < options_.max_stack; ++i) {
      uint64_t ip = chain[i];
      if (ip >= PERF_CONTEXT_MAX) {
        cpumode = session::context_cpumode(ip, cpumode);
        continue;
      }
      ++frames;
      if (!visit(cpumode, ip, frames)) return;
    }
  }

  const FrameName& frame_name(const session::Thread& thread, uint8_t cpumode, uint64_t ip) {
    bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
    if (kernel) {
      if (const FrameName* known = kernel_frames_.find(ip)) return *known;
    }
    FrameName name;
    session::Location location = machine_.locate(thread, cpumode, ip);
    if (location.dso != nullptr) {
      if (const symbols::Symbol* symbol = symbolizer_.find(*location.dso, location.dso_address)) {
        name.has_symbol = true;
        uint64_t offset = symbolizer_.elf_address(*location.dso, location.dso_address) - symbol->start;
        name.label = offset != 0 ? fmt::format("{}+{:#x}", symbol->name, offset) : symbol->name;
      }
    }
    for (const auto& [start, end] : lock_text()) name.lock_code = name.lock_code || (start <= ip && ip < end);
    if (kernel) return kernel_frames_[ip] = std::move(name);
    user_frame_ = std::move(name);
    return user_frame_;
  }

  // perf's callchain_id: the frames after --stack-skip that are not lock code, hashed and xor'ed.
  uint64_t callchain_key(const session::SampleEvent& sample) {
    uint64_t hash = 0;
    for_each_frame(sample, [&](uint8_t cpumode, uint64_t ip, int position) {
      if (position <= options_.stack_skip) return true;
      const FrameName& name = frame_name(sample.thread, cpumode, ip);
      if (!(name.has_symbol && name.lock_code)) hash ^= static_cast<uint32_t>(ip * kGoldenRatio64);
      return true;
    });
    return hash;
  }

  std::string caller_name(const session::SampleEvent& sample) {
    std::optional<std::string> caller;
    for_each_frame(sample, [&](uint8_t cpumode, uint64_t ip, int position) {
      if (position <= options_.stack_skip) return true;
      const FrameName& name = frame_name(sample.thread, cpumode, ip);
      if (!name.has_symbol || name.lock_code) return true;
      caller = name.label.substr(0, 127);  // perf's 128-byte buffer
      return false;
    });
    return caller ? *caller : "Unknown";
  }

  uint64_t aggregate_key(const session::SampleEvent& sample, uint64_t lock_address) {
    switch (options_.aggregation) {
      case LockAggregation::task:
        return static_cast<uint64_t>(sample.sample.tid);
      case LockAggregation::address:
        return lock_address;
      case LockAggregation::caller:
        break;
    }
    return callchain_key(sample);
  }

  void begin(const session::SampleEvent& sample) {
    const perfdata::Sample& s = sample.sample;
    const uint64_t lock_address = events_->begin_addr.read(s.raw);
    uint64_t key = aggregate_key(sample, lock_address);
    size_t* index = stat_index_.find(key);
    if (index == nullptr) {
      LockStat stat;
      stat.key = key;
      stat.name = caller_name(sample);
      stat.flags = static_cast<uint32_t>(events_->begin_flags.read(s.raw));
      if (options_.aggregation == LockAggregation::caller && options_.save_callstacks)
        // perf names these by the kernel's symbols only.
        for_each_frame(sample, [&](uint8_t cpumode, uint64_t ip, int) {
          bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
          stat.callstack.emplace_back(ip,
                                      kernel ? frame_name(sample.thread, cpumode, ip).label : std::string());
          return true;
        });
      stat_index_[key] = stats_.size();
      stats_.push_back(std::move(stat));
      index = stat_index_.find(key);
    }
    LockStat& stat = stats_[*index];
    threads_[static_cast<uint32_t>(s.tid)] = true;
    Sequence& sequence = sequences_[{static_cast<uint32_t>(s.tid), lock_address}];
    if (sequence.state == SequenceState::contended) return;  // nested: the first begin's time stays
    sequence.state = SequenceState::contended;
    sequence.start = s.time;
    ++stat.nr_contended;
  }

  void end(const session::SampleEvent& sample) {
    const perfdata::Sample& s = sample.sample;
    const uint64_t lock_address = events_->end_addr.read(s.raw);
    size_t* index = stat_index_.find(aggregate_key(sample, lock_address));
    if (index == nullptr) return;
    LockStat& stat = stats_[*index];
    const SequenceKey sequence_key{static_cast<uint32_t>(s.tid), lock_address};
    // perf keeps sequences per thread a begin made; an end of any other thread is dropped.
    if (threads_.find(sequence_key.first) == nullptr) return;
    Sequence& sequence = sequences_[sequence_key];
    switch (sequence.state) {
      case SequenceState::uninitialized:
        return;
      case SequenceState::contended: {
        uint64_t waited = s.time - sequence.start;
        stat.wait_total += waited;
        stat.wait_min = std::min(stat.wait_min, waited);
        stat.wait_max = std::max(stat.wait_max, waited);
        break;
      }
      case SequenceState::acquired:
        if (!stat.broken) ++bad_histogram_[1];  // "acquired"
        stat.broken = true;
        sequences_.erase(sequence_key);
        return;
    }
    sequence.state = SequenceState::acquired;
    ++stat.nr_acquired;
    stat.avg_wait = stat.wait_total / stat.nr_acquired;
  }

  using SequenceKey = std::pair<uint32_t, uint64_t>;  // tid, lock address
  struct SequenceKeyHash {
    size_t operator()(const SequenceKey& key) const { return key.second ^ (uint64_t{key.first} << 40); }
  };

  const LockOptions& options_;
  perfdata::PerfDataReader& reader_;
  std::optional<LockEvents> events_;
  const session::Machine& machine_;
  symbols::Symbolizer symbolizer_;
  std::optional<std::vector<std::pair<uint64_t, uint64_t>>> lock_text_;  // see lock_text()
  FlatHashMap<uint64_t, FrameName> kernel_frames_;
  FrameName user_frame_;
  std::vector<LockStat> stats_;  // in creation order
  FlatHashMap<uint64_t, size_t> stat_index_;
  FlatHashMap<SequenceKey, Sequence, SequenceKeyHash> sequences_;
  FlatHashMap<uint32_t, bool> threads_;  // tids a begin was seen of
  std::array<int, 4> bad_histogram_{};
};

}  // namespace

std::vector<std::pair<uint64_t, uint64_t>> kernel_lock_text(const std::string& kallsyms) {
  auto markers = symbols::kallsyms_addresses(
      kallsyms, {"__sched_text_start", "__sched_text_end", "__lock_text_start", "__lock_text_end"});
  if (!markers || markers->size() != 4) return {};
  return {{markers->at("__sched_text_start"), markers->at("__sched_text_end")},
          {markers->at("__lock_text_start"), markers->at("__lock_text_end")}};
}

Result<LockField> parse_lock_field(std::string_view name) {
  for (const NamedField& known : kFieldNames)
    if (known.name == name) return known.field;
  return failf("unknown lock key '{}'; give contended, wait_total, wait_max, wait_min, avg_wait or acquired",
               name);
}

Result<std::vector<LockField>> parse_lock_fields(std::string_view list) {
  std::vector<LockField> fields;
  for (size_t start = 0; start <= list.size();) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    auto field = parse_lock_field(list.substr(start, comma - start));
    if (!field) return tl::unexpected(field.error());
    fields.push_back(*field);
    start = comma + 1;
  }
  return fields;
}

std::vector<LockStat> combine_lock_stats(std::vector<LockStat> stats, LockField key) {
  std::vector<LockStat> combined;
  FlatHashMap<std::string, size_t> by_name;
  for (LockStat& stat : stats) {
    if (size_t* at = by_name.find(stat.name)) {
      LockStat& into = combined[*at];
      into.nr_acquired += stat.nr_acquired;
      into.nr_contended += stat.nr_contended;
      into.wait_total += stat.wait_total;
      into.wait_max = std::max(into.wait_max, stat.wait_max);
      into.wait_min = std::min(into.wait_min, stat.wait_min);
      into.avg_wait = into.nr_acquired != 0 ? into.wait_total / into.nr_acquired : 0;
      into.broken = into.broken || stat.broken;
      continue;
    }
    by_name[stat.name] = combined.size();
    combined.push_back(std::move(stat));
  }
  std::stable_sort(combined.begin(), combined.end(),
                   [](const LockStat& a, const LockStat& b) { return a.name < b.name; });
  std::stable_sort(combined.begin(), combined.end(),
                   [key](const LockStat& a, const LockStat& b) { return a.value(key) > b.value(key); });
  return combined;
}

uint64_t LockStat::value(LockField field) const {
  switch (field) {
    case LockField::acquired:
      return nr_acquired;
    case LockField::contended:
      return nr_contended;
    case LockField::avg_wait:
      return avg_wait;
    case LockField::wait_total:
      return wait_total;
    case LockField::wait_max:
      return wait_max;
    case LockField::wait_min:
      return wait_min == UINT64_MAX ? 0 : wait_min;
  }
  return 0;
}

std::string_view lock_type_name(uint32_t flags) {
  // include/trace/events/lock.h's LCB_F_* bits: SPIN 1, READ 2, WRITE 4, RT 8, PERCPU 16, MUTEX 32.
  switch (flags) {
    case 0:
      return "semaphore";
    case 1:
      return "spinlock";
    case 3:
      return "rwlock:R";
    case 5:
      return "rwlock:W";
    case 2:
      return "rwsem:R";
    case 4:
      return "rwsem:W";
    case 8:
      return "rtmutex";
    case 10:
      return "rwlock-rt:R";
    case 12:
      return "rwlock-rt:W";
    case 18:
      return "pcpu-sem:R";
    case 20:
      return "pcpu-sem:W";
    case 32:
    case 33:
      return "mutex";
    default:
      return "unknown";
  }
}

Result<LockContention> lock_contention(const LockOptions& options, Diagnostics& diagnostics) {
  auto session = session::Session::open(options.input_path, diagnostics);
  if (!session) return tl::unexpected(session.error());
  ContentionPass pass(options, session->reader(), session->machine(), diagnostics);
  // A file's events are known now: refuse before reading its data. A pipe's come with its data.
  if (!session->reader().is_pipe())
    if (auto checked = check_lock_events(pass.events(), options.input_path); !checked)
      return tl::unexpected(checked.error());
  session->set_locate_callchains(false);
  session->show_progress("lock");
  if (auto processed = session->process(pass); !processed) return tl::unexpected(processed.error());
  if (auto checked = check_lock_events(pass.events(), options.input_path); !checked)
    return tl::unexpected(checked.error());
  return pass.finish();
}

}  // namespace sonde::analysis
