#include "analysis/sched/sched_replay.hpp"

#include <event-parse.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "analysis/heatmap/tracepoint_field.hpp"
#include "analysis/sched/sched_scan.hpp"
#include "base/bytes.hpp"
#include "perfdata/kernel_records.hpp"
#include "perfdata/reader.hpp"
#include "session/session.hpp"
#include "session/tracepoint_formats.hpp"

namespace sonde::analysis {

SchedThreads::SchedThreads() {
  // perf's machine knows the idle task as "swapper" from the start.
  uint32_t swapper = findnew(0, 0);
  threads_[swapper].comm = "swapper";
  threads_[swapper].comm_set = true;
}

void SchedThreads::index(int32_t tid, uint32_t id) {
  if (tid < 0) {
    if (tid == -1) minus_one_ = id;
    return;
  }
  if (static_cast<size_t>(tid) >= by_tid_.size()) by_tid_.resize(static_cast<size_t>(tid) + 1024, kNone);
  by_tid_[tid] = id;
}

uint32_t SchedThreads::findnew(int32_t pid, int32_t tid) {
  uint32_t id = find(tid);
  if (id != kNone) {
    Thread& known = threads_[id];
    if (known.pid == -1 && pid != -1) known.pid = pid;
    return id;
  }
  Thread created;
  created.pid = pid;
  created.tid = tid;
  created.comm = ":" + std::to_string(tid);
  id = static_cast<uint32_t>(threads_.size());
  threads_.push_back(std::move(created));
  index(tid, id);
  return id;
}

uint32_t SchedThreads::apply_comm(int32_t pid, int32_t tid, std::string_view comm) {
  uint32_t id = findnew(pid, tid);
  threads_[id].comm.assign(comm);
  threads_[id].comm_set = true;
  return id;
}

uint32_t SchedThreads::apply_fork(int32_t pid, int32_t tid, int32_t ppid, int32_t ptid) {
  uint32_t parent = findnew(ppid, ptid);
  uint32_t existing = find(tid);
  // perf removes a thread the fork's tid already names (its events stay with the old one).
  if (existing != kNone && tid != ptid) index(tid, kNone);
  uint32_t child = findnew(pid, tid);
  if (threads_[parent].comm_set && child != parent) {
    threads_[child].comm = threads_[parent].comm;
    threads_[child].comm_set = true;
  }
  threads_[child].ppid = threads_[parent].tid;
  return child;
}

void SchedThreads::apply_exit(int32_t tid) {
  uint32_t id = find(tid);
  if (id != kNone) threads_[id].exited = true;
}

std::vector<uint32_t> SchedThreads::in_machine_order() const {
  std::vector<uint32_t> ids;
  if (minus_one_ != kNone) ids.push_back(minus_one_);
  for (size_t tid = 0; tid < by_tid_.size(); ++tid)
    if (by_tid_[tid] != kNone) ids.push_back(by_tid_[tid]);
  // perf's 256 trees of threads, by tid % 256, each in tid order.
  std::stable_sort(ids.begin(), ids.end(), [this](uint32_t a, uint32_t b) {
    int32_t ta = threads_[a].tid, tb = threads_[b].tid;
    uint32_t ba = static_cast<uint32_t>(ta) % 256, bb = static_cast<uint32_t>(tb) % 256;
    return ba != bb ? ba < bb : ta < tb;
  });
  return ids;
}

namespace {

SchedField field_of(const tep_event* event, std::string_view name) {
  const tep_format_field* field = find_tracepoint_field(event, name);
  if (field == nullptr) return {};
  return SchedField{static_cast<uint32_t>(field->offset), static_cast<uint32_t>(field->size),
                    (field->flags & TEP_FIELD_IS_SIGNED) != 0};
}

int64_t read_int(Bytes raw, const SchedField& field) {
  return read_sched_field(raw.data(), raw.size(), field);
}

std::string_view read_string(Bytes raw, const SchedField& field) {
  if (field.size == 0 || field.offset + field.size > raw.size()) return {};
  const char* at = reinterpret_cast<const char*>(raw.data() + field.offset);
  return std::string_view(at, strnlen(at, field.size));
}

// The general path, for files the scan does not read (samples that do not say their event where
// the scan looks, PERF_SAMPLE_READ): the Session's replay.
class Replayer : public session::SessionVisitor {
 public:
  Replayer(std::vector<SchedEventLayout> events, SchedThreads& threads, SchedHandler& handler,
           SchedFileFacts& facts)
      : events_(std::move(events)), threads_(threads), handler_(handler), facts_(facts) {}

  void on_sample(const session::SampleEvent& event) override {
    if (event.event_index >= events_.size()) return;
    const SchedEventLayout& fields = events_[event.event_index];
    const perfdata::Sample& sample = event.sample;
    SchedSample out;
    out.kind = fields.sched && handler_.wants(fields.kind) ? fields.kind : SchedKind::other;
    out.time = sample.time;
    out.cpu = sample.cpu;
    out.sample_pid = static_cast<int32_t>(sample.pid);
    out.sample_tid = static_cast<int32_t>(sample.tid);
    out.has_callchain = sample.has(PERF_SAMPLE_CALLCHAIN) && sample.callchain.size() > 0;
    if (out.has_callchain) out.callchain = event.callchain;
    Bytes raw = sample.raw;
    if (out.kind == SchedKind::other) {
      if (sample.cpu < handler_.other_from_cpu()) return;
    } else if (fields.kind == SchedKind::sched_switch) {
      out.prev_pid = static_cast<int32_t>(read_int(raw, fields.prev_pid));
      out.next_pid = static_cast<int32_t>(read_int(raw, fields.next_pid));
      out.prev_state = read_int(raw, fields.prev_state);
      out.next_comm = read_string(raw, fields.next_comm);
      out.prev_comm = read_string(raw, fields.prev_comm);
    } else {
      out.pid = static_cast<int32_t>(read_int(raw, fields.pid));
      out.comm = read_string(raw, fields.comm);
      if (fields.kind == SchedKind::migrate_task) {
        out.orig_cpu = static_cast<int32_t>(read_int(raw, fields.orig_cpu));
        out.dest_cpu = static_cast<int32_t>(read_int(raw, fields.dest_cpu));
      } else if (fields.kind == SchedKind::stat_runtime) {
        out.runtime = static_cast<uint64_t>(read_int(raw, fields.runtime));
      }
    }
    handler_.on_sched(out);
  }

  Result<void> on_record(const perfdata::RecordView& record, const perfdata::EventAttr* /*attr*/,
                         const perfdata::SampleId& id) override {
    apply_sched_side_band(record, id, threads_, handler_, facts_);
    return {};
  }

 private:
  std::vector<SchedEventLayout> events_;
  SchedThreads& threads_;
  SchedHandler& handler_;
  SchedFileFacts& facts_;
};

}  // namespace

Result<SchedFileFacts> SchedReplay::run(const std::string& path, SchedThreads& threads, SchedHandler& handler,
                                        Diagnostics& diagnostics,
                                        const std::function<Result<void>(const SchedFileFacts&)>& before,
                                        bool keep_comms, bool callchains) {
  auto reader = perfdata::PerfDataReader::open(path, diagnostics);
  if (!reader) return tl::unexpected(reader.error());
  if (reader->is_pipe()) return failf("perf sched reports read a file, not a pipe: record with -o FILE");
  bool any_callchain = false;
  for (const perfdata::EventAttr& attr : reader->attrs().events())
    any_callchain = any_callchain || (attr.attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
  bool scan = !(callchains && any_callchain) && can_scan_sched_file(*reader);
  std::optional<session::Session> session;
  perfdata::PerfDataReader* header = &*reader;
  if (!scan) {
    auto opened = session::Session::open(path, diagnostics);
    if (!opened) return tl::unexpected(opened.error());
    session.emplace(std::move(*opened));
    session->set_locate_callchains(callchains);
    header = &session->reader();
  }
  Bytes blob = header->tracing_data();
  if (blob.empty())
    return failf("{} holds no tracepoints; record them with 'sonde sched record -- COMMAND'", path);
  std::optional<session::TracepointFormats> formats;
  if (!blob.empty()) {
    auto parsed = session::TracepointFormats::parse(blob);
    if (!parsed) return tl::unexpected(parsed.error().with_context(path + ": tracing data"));
    formats.emplace(std::move(*parsed));
  }

  SchedFileFacts facts;
  if (const auto& nr = header->features().nr_cpus) facts.nr_cpus_online = nr->online;
  std::vector<SchedEventLayout> events;
  bool any = false;
  for (const perfdata::EventAttr& attr : header->attrs().events()) {
    SchedEventLayout fields;
    tep_event* format =
        formats && attr.attr.type == PERF_TYPE_TRACEPOINT ? formats->find(attr.attr.config) : nullptr;
    bool has_raw = (attr.attr.sample_type & PERF_SAMPLE_RAW) != 0;
    std::string name = format && has_raw ? session::TracepointFormats::qualified_name(format) : "";
    fields.sched = true;
    if (name == "sched:sched_switch") {
      fields.kind = SchedKind::sched_switch;
      facts.has_switch = true;
      facts.switch_has_callchain = (attr.attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
    } else if (name == "sched:sched_wakeup") {
      fields.kind = SchedKind::wakeup;
    } else if (name == "sched:sched_waking") {
      fields.kind = SchedKind::waking;
      facts.has_waking = true;
    } else if (name == "sched:sched_wakeup_new") {
      fields.kind = SchedKind::wakeup_new;
    } else if (name == "sched:sched_migrate_task") {
      fields.kind = SchedKind::migrate_task;
    } else if (name == "sched:sched_stat_runtime") {
      fields.kind = SchedKind::stat_runtime;
    } else {
      fields.sched = false;
    }
    if (fields.sched) {
      any = true;
      fields.prev_pid = field_of(format, "prev_pid");
      fields.next_pid = field_of(format, "next_pid");
      fields.prev_state = field_of(format, "prev_state");
      fields.next_comm = field_of(format, "next_comm");
      fields.prev_comm = field_of(format, "prev_comm");
      fields.pid = field_of(format, "pid");
      fields.comm = field_of(format, "comm");
      fields.orig_cpu = field_of(format, "orig_cpu");
      fields.dest_cpu = field_of(format, "dest_cpu");
      fields.runtime = field_of(format, "runtime");
    }
    events.push_back(fields);
  }
  if (!any)
    return failf("{} holds no sched tracepoints; record them with 'sonde sched record -- COMMAND'", path);
  if (before) {
    auto ready = before(facts);
    if (!ready) return tl::unexpected(ready.error());
  }
  if (scan) {
    SchedScanInput input{std::move(events), keep_comms};
    auto done = scan_sched_file(*reader, input, threads, handler, facts, diagnostics);
    if (!done) return tl::unexpected(done.error().with_context(path));
    return facts;
  }
  Replayer replayer(std::move(events), threads, handler, facts);
  auto done = session->process(replayer);
  if (!done) return tl::unexpected(done.error().with_context(path));
  facts.nr_events = session->stats().records;
  return facts;
}

}  // namespace sonde::analysis
