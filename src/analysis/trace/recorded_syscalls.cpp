#include "analysis/trace/recorded_syscalls.hpp"

#include <event-parse.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "analysis/heatmap/tracepoint_field.hpp"
#include "base/bytes.hpp"
#include "kernel/syscall_table.hpp"
#include "session/session.hpp"
#include "session/tracepoint_formats.hpp"

namespace sonde::analysis {

namespace {

enum class Side { none, enter, exit };

void copy_comm(kernel::SyscallTraceEvent& event, const std::string& comm) {
  std::memset(event.comm, 0, sizeof event.comm);
  std::memcpy(event.comm, comm.data(), std::min(comm.size(), sizeof event.comm));
}

struct FieldAt {
  size_t offset = 0;
  size_t size = 0;
};

class SyscallPairer : public session::SessionVisitor {
 public:
  SyscallPairer(std::vector<Side> sides, FieldAt id, FieldAt args, FieldAt ret,
                const std::function<void(const kernel::SyscallTraceEvent&)>& on_event,
                const std::function<void(uint64_t)>& on_first_sample)
      : sides_(std::move(sides)),
        id_(id),
        args_(args),
        ret_(ret),
        on_event_(on_event),
        on_first_sample_(on_first_sample) {}

  void on_sample(const session::SampleEvent& event) override {
    if (event.event_index >= sides_.size()) return;
    Side side = sides_[event.event_index];
    if (side == Side::none) return;
    const perfdata::Sample& sample = event.sample;
    auto tid = static_cast<pid_t>(sample.tid);
    // perf's event counts: every raw_syscalls sample of the file, and of the thread those with a
    // syscall number (rt_sigreturn's exit has none).
    ++total_samples_;
    if (!started_) {
      started_ = true;
      on_first_sample_(sample.time);
    }
    // perf prints a call's entry when another thread's entry comes before its exit, and the exit
    // later as "... [continued]": replayed in the file's order, the lines are perf's.
    if (side == Side::enter && current_ && *current_ != tid) interrupt(*current_);
    auto id = read_long(sample.raw, id_);
    if (!id || *id < 0 || *id >= SONDE_TRACE_MAX_SYSCALLS) return;
    ++samples_[tid];
    if (side == Side::enter) {
      current_ = tid;
      interrupted_.erase(tid);
      auto& call = in_flight_[tid];
      call = kernel::SyscallTraceEvent{};
      call.nr = static_cast<int32_t>(*id);
      call.enter_ns = sample.time;
      call.pid = static_cast<uint32_t>(sample.pid);
      call.tid = static_cast<uint32_t>(sample.tid);
      call.cpu = sample.cpu;
      copy_comm(call, event.thread.comm);
      for (size_t i = 0; i < 6; ++i) {
        FieldAt arg{args_.offset + i * 8, 8};
        call.args[i] = static_cast<uint64_t>(read_long(sample.raw, arg).value_or(0));
      }
      // exit and exit_group never return, and rt_sigreturn's exit has no number: shown at entry.
      constexpr int kRtSigreturn = 15, kExit = 60, kExitGroup = 231;
      if (call.nr == kRtSigreturn || call.nr == kExit || call.nr == kExitGroup) {
        call.flags = call.nr == kRtSigreturn ? SONDE_TRACE_UNFINISHED : SONDE_TRACE_NO_RETURN;
        call.exit_ns = call.enter_ns;
        on_event_(call);
        in_flight_.erase(tid);
        current_.reset();
      }
      return;
    }
    if (current_ == tid) current_.reset();
    kernel::SyscallTraceEvent done{};
    auto found = in_flight_.find(tid);
    if (found != in_flight_.end() && found->second.nr == *id && found->second.enter_ns != 0) {
      done = found->second;
      in_flight_.erase(found);
      if (interrupted_.erase(tid) > 0) done.flags |= SONDE_TRACE_RESUMED;
    } else {
      done.nr = static_cast<int32_t>(*id);
      done.flags = SONDE_TRACE_CONTINUED;
    }
    done.exit_ns = sample.time;
    done.ret = read_long(sample.raw, ret_).value_or(0);
    done.pid = static_cast<uint32_t>(sample.pid);
    done.tid = static_cast<uint32_t>(sample.tid);
    done.cpu = sample.cpu;
    copy_comm(done, event.thread.comm);
    uint64_t duration = done.enter_ns ? done.exit_ns - done.enter_ns : 0;
    auto& thread = threads_[tid];
    thread.tid = tid;
    thread.comm = event.thread.comm;
    auto& row = thread_rows_[tid][done.nr];
    row.number = done.nr;
    row.stats.add(duration, done.ret);
    on_event_(done);
  }

  SyscallSummary summary(const std::function<std::string(int)>& name_of) {
    SyscallSummary summary;
    for (auto& [tid, thread] : threads_) {
      for (auto& [nr, row] : thread_rows_[tid]) {
        row.name = name_of(nr);
        thread.syscalls.push_back(std::move(row));
      }
      thread.events = samples_[tid];
      summary.threads.push_back(std::move(thread));
    }
    summary.total_events = total_samples_;
    return summary;
  }

 private:
  // Prints a thread's pending entry as perf does when another thread's event interrupts it.
  void interrupt(pid_t tid) {
    current_.reset();
    auto found = in_flight_.find(tid);
    if (found == in_flight_.end() || found->second.enter_ns == 0) return;
    kernel::SyscallTraceEvent entry = found->second;
    entry.flags |= SONDE_TRACE_UNFINISHED;
    entry.exit_ns = entry.enter_ns;
    on_event_(entry);
    interrupted_.insert(tid);
  }

  static std::optional<int64_t> read_long(Bytes raw, FieldAt field) {
    if (field.size != 8 || field.offset + 8 > raw.size()) return std::nullopt;
    int64_t value;
    std::memcpy(&value, raw.data() + field.offset, 8);
    return value;
  }

  std::vector<Side> sides_;
  FieldAt id_, args_, ret_;
  const std::function<void(const kernel::SyscallTraceEvent&)>& on_event_;
  const std::function<void(uint64_t)>& on_first_sample_;
  bool started_ = false;
  std::unordered_map<pid_t, uint64_t> samples_;
  uint64_t total_samples_ = 0;
  std::unordered_map<pid_t, kernel::SyscallTraceEvent> in_flight_;
  std::optional<pid_t> current_;           // the thread whose entry came last, not printed yet
  std::unordered_set<pid_t> interrupted_;  // threads whose pending entry has been printed
  std::map<pid_t, ThreadSyscalls> threads_;
  std::map<pid_t, std::map<int, SyscallRow>> thread_rows_;
};

Result<FieldAt> field_at(const tep_event* format, std::string_view name) {
  const tep_format_field* field = find_tracepoint_field(format, name);
  if (field == nullptr) return failf("raw_syscalls:{} has no field '{}'", format->name, name);
  FieldAt at{static_cast<size_t>(field->offset), static_cast<size_t>(field->size)};
  if (name == "args") at.size = 8;  // each of the six elements
  return at;
}

}  // namespace

Result<RecordedSyscallsResult> replay_recorded_syscalls(
    const std::string& path, const std::function<void(const kernel::SyscallTraceEvent& event)>& on_event,
    const std::function<void(uint64_t time)>& on_first_sample, Diagnostics& diagnostics) {
  auto session = session::Session::open(path, diagnostics);
  if (!session) return tl::unexpected(session.error());
  session->set_locate_callchains(false);
  Bytes blob = session->reader().tracing_data();
  if (blob.empty())
    return failf("{} holds no tracepoints; record one with 'sonde trace record -- COMMAND'", path);
  auto formats = session::TracepointFormats::parse(blob);
  if (!formats) return tl::unexpected(formats.error().with_context(path + ": tracing data"));
  std::vector<Side> sides;
  const tep_event* enter = nullptr;
  const tep_event* exit = nullptr;
  for (const perfdata::EventAttr& attr : session->reader().attrs().events()) {
    tep_event* format = attr.attr.type == PERF_TYPE_TRACEPOINT ? formats->find(attr.attr.config) : nullptr;
    std::string name = format ? session::TracepointFormats::qualified_name(format) : "";
    bool has_raw = (attr.attr.sample_type & PERF_SAMPLE_RAW) != 0;
    if (name == "raw_syscalls:sys_enter" && has_raw) {
      sides.push_back(Side::enter);
      enter = format;
    } else if (name == "raw_syscalls:sys_exit" && has_raw) {
      sides.push_back(Side::exit);
      exit = format;
    } else {
      sides.push_back(Side::none);
    }
  }
  if (enter == nullptr || exit == nullptr)
    return failf(
        "{} has no raw_syscalls:sys_enter and sys_exit events with their payloads; record with "
        "'sonde trace record -- COMMAND'",
        path);
  auto id = field_at(enter, "id");
  auto args = field_at(enter, "args");
  auto ret = field_at(exit, "ret");
  auto exit_id = field_at(exit, "id");
  if (!id || !args || !ret || !exit_id)
    return fail("the raw_syscalls formats of " + path + " are not the kernel's");
  if (exit_id->offset != id->offset)
    return failf("{}: raw_syscalls:sys_enter and sys_exit place the syscall id differently", path);
  SyscallPairer pairer(std::move(sides), *id, *args, *ret, on_event, on_first_sample);
  if (auto replayed = session->process(pairer); !replayed) return tl::unexpected(replayed.error());
  RecordedSyscallsResult result;
  result.lost_events = session->stats().lost_events;
  result.summary = pairer.summary([](int nr) {
    std::string_view name = kernel::syscall_name(nr);
    return name.empty() ? "syscall_" + std::to_string(nr) : std::string(name);
  });
  return result;
}

}  // namespace sonde::analysis
