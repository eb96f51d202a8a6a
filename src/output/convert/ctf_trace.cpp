#include "output/convert/ctf_trace.hpp"

#include <linux/perf_event.h>
#include <traceevent/event-parse.h>

#include "base/bytes.hpp"

namespace sonde::output {

namespace {

constexpr unsigned kMaxStreams = 4096;

}  // namespace

CtfTrace::CtfTrace(session::Session& session, CtfWriter writer, Options options)
    : session_(session), writer_(std::move(writer)), options_(options) {}

CtfTrace::~CtfTrace() = default;

Result<std::unique_ptr<CtfTrace>> CtfTrace::create(session::Session& session, const std::string& directory,
                                                   Options options) {
  if (options.tod && !session.reader().features().clock_data)
    return fail("--tod needs the recording's clock data: record with -k/--clockid (perf record -k mono)");
  auto writer = CtfWriter::create(directory, kMaxStreams);
  if (!writer) return tl::unexpected(writer.error());
  return std::unique_ptr<CtfTrace>(new CtfTrace(session, std::move(*writer), options));
}

void CtfTrace::make_classes() {
  classes_ready_ = true;
  if (Bytes blob = session_.reader().tracing_data(); !blob.empty()) {
    auto formats = session::TracepointFormats::parse(blob);
    if (formats) formats_ = std::make_unique<session::TracepointFormats>(std::move(*formats));
  }
  for (const auto& event : session_.reader().attrs().events()) {
    EventClass& klass = classes_.emplace_back();
    klass.name = session::event_name(event);
    klass.sample_type = event.attr.sample_type;
    klass.bpf_output = event.attr.type == PERF_TYPE_SOFTWARE && event.attr.config == PERF_COUNT_SW_BPF_OUTPUT;
    if (event.attr.type != PERF_TYPE_TRACEPOINT || !formats_) continue;
    tep_event* format = formats_->find(event.attr.config);
    if (format == nullptr) continue;
    // The generic fields' names, for perf's duplicate check.
    std::vector<std::string> taken = {
        "perf_ip",       "perf_tid",    "perf_pid",      "perf_id",          "perf_stream_id",
        "perf_period",   "perf_weight", "perf_data_src", "perf_transaction", "perf_callchain_size",
        "perf_callchain"};
    klass.fields = ctf_tracepoint_fields(*format, taken);
  }
  const auto& nr_cpus = session_.reader().features().nr_cpus;
  writer_.set_cpus(nr_cpus && nr_cpus->available > 0 ? nr_cpus->available : kMaxStreams);
}

void CtfTrace::on_sample(const session::SampleEvent& sample) {
  // A pipe's events and formats arrive as records ahead of its samples: the classes wait.
  if (!classes_ready_) make_classes();
  if (sample.event_index >= classes_.size()) return;
  const perfdata::Sample& s = sample.sample;
  const EventClass& klass = classes_[sample.event_index];
  uint32_t cpu = (klass.sample_type & PERF_SAMPLE_CPU) ? s.cpu : 0;
  ++samples_;
  // CTF readers take stamps as signed nanoseconds: past INT64_MAX a stream cannot be read. An
  // off-CPU recording's totals carry such made-up stamps (near 2^64, after every real one):
  // they are written at the last real stamp, the end of the recording.
  uint64_t time = s.has(PERF_SAMPLE_TIME) ? s.time : 0;
  std::string* events = writer_.begin_event(cpu, static_cast<uint32_t>(sample.event_index), time);
  if (events == nullptr) return;
  std::string& out = *events;
  uint64_t type = klass.sample_type;
  if (type & PERF_SAMPLE_IP) put_ctf<uint64_t>(out, s.ip);
  if (type & PERF_SAMPLE_TID) {
    put_ctf<int32_t>(out, static_cast<int32_t>(s.tid));
    put_ctf<int32_t>(out, static_cast<int32_t>(s.pid));
  }
  if (type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) put_ctf<uint64_t>(out, s.id);
  if (type & PERF_SAMPLE_STREAM_ID) put_ctf<uint64_t>(out, s.stream_id);
  if (type & PERF_SAMPLE_PERIOD) put_ctf<uint64_t>(out, s.period);
  if (type & PERF_SAMPLE_WEIGHT) put_ctf<uint64_t>(out, s.weight);
  if (type & PERF_SAMPLE_DATA_SRC) put_ctf<uint64_t>(out, s.data_src);
  if (type & PERF_SAMPLE_TRANSACTION) put_ctf<uint64_t>(out, s.transaction);
  if (type & PERF_SAMPLE_CALLCHAIN) {
    put_ctf<uint32_t>(out, static_cast<uint32_t>(s.callchain.size()));
    for (size_t i = 0; i < s.callchain.size(); ++i) put_ctf<uint64_t>(out, s.callchain[i]);
  }
  const uint8_t* raw = s.raw.data();
  size_t raw_size = s.raw.size();
  put_ctf_tracepoint_fields(out, klass.fields, raw, raw_size);
  if (klass.bpf_output) {
    uint32_t words = static_cast<uint32_t>(raw_size / 4);
    put_ctf<uint32_t>(out, words);
    for (uint32_t i = 0; i < words; ++i) put_ctf<uint32_t>(out, load<uint32_t>(raw + 4 * i));
  }
}

Result<void> CtfTrace::on_record(const perfdata::RecordView& record, const perfdata::EventAttr* /*attr*/,
                                 const perfdata::SampleId& id) {
  uint32_t type = record.type();
  if (!options_.all) return {};
  if (type != PERF_RECORD_COMM && type != PERF_RECORD_EXIT && type != PERF_RECORD_FORK &&
      type != PERF_RECORD_MMAP && type != PERF_RECORD_MMAP2)
    return {};
  if (!classes_ready_) make_classes();
  // perf's classes after the events': perf_comm, perf_exit, perf_fork, perf_mmap, perf_mmap2; all
  // on CPU 0's stream.
  uint32_t base = static_cast<uint32_t>(session_.reader().attrs().events().size());
  uint64_t time = id.present ? id.time : 0;
  std::string* out = nullptr;
  if (type == PERF_RECORD_COMM) {
    auto comm = perfdata::CommRecord::decode(record);
    if (!comm || !(out = writer_.begin_event(0, base, time))) return {};
    put_ctf<uint32_t>(*out, comm->pid);
    put_ctf<uint32_t>(*out, comm->tid);
    put_ctf_string(*out, comm->comm);
  } else if (type == PERF_RECORD_EXIT || type == PERF_RECORD_FORK) {
    auto task = perfdata::ForkExitRecord::decode(record);
    if (!task || !(out = writer_.begin_event(0, base + (type == PERF_RECORD_EXIT ? 1 : 2), time))) return {};
    for (uint32_t value : {task->pid, task->ppid, task->tid, task->ptid}) put_ctf<uint32_t>(*out, value);
    put_ctf<uint64_t>(*out, task->time);
  } else if (type == PERF_RECORD_MMAP) {
    auto map = perfdata::MmapRecord::decode(record);
    if (!map || !(out = writer_.begin_event(0, base + 3, time))) return {};
    put_ctf<uint32_t>(*out, map->pid);
    put_ctf<uint32_t>(*out, map->tid);
    put_ctf<uint64_t>(*out, map->addr);
    put_ctf_string(*out, map->filename);
  } else {
    auto map = perfdata::Mmap2Record::decode(record);
    if (!map || !(out = writer_.begin_event(0, base + 4, time))) return {};
    put_ctf<uint32_t>(*out, map->pid);
    put_ctf<uint32_t>(*out, map->tid);
    put_ctf<uint64_t>(*out, map->addr);
    put_ctf_string(*out, map->filename);
  }
  ++non_samples_;
  return {};
}

Result<void> CtfTrace::finish() {
  if (!classes_ready_) make_classes();
  const perfdata::FeatureSet& f = session_.reader().features();
  CtfWriter::Environment environment{f.hostname.value_or(""), f.os_release.value_or(""),
                                     f.version.value_or(""), f.arch.value_or("")};
  // --tod: the wall-clock time at the sampling clock's zero (perf's tod_ns - clockid_ns).
  int64_t clock_offset = options_.tod && f.clock_data
                             ? static_cast<int64_t>(f.clock_data->tod_ns - f.clock_data->clockid_ns)
                             : 0;
  return writer_.finish(environment, clock_offset, event_classes());
}

std::string CtfTrace::event_classes() const {
  std::string out;
  for (size_t id = 0; id < classes_.size(); ++id) {
    const EventClass& klass = classes_[id];
    out += fmt::format("event {{\n\tid = {};\n\tname = {};\n\tstream_id = 0;\n\tfields := struct {{\n", id,
                       ctf_quoted(klass.name));
    auto field = [&](CtfType type, std::string_view name) {
      out += fmt::format("\t\t{} {};\n", ctf_type_text(type), name);
    };
    uint64_t type = klass.sample_type;
    if (type & PERF_SAMPLE_IP) field(CtfType::u64_hex, "perf_ip");
    if (type & PERF_SAMPLE_TID) field(CtfType::s32, "perf_tid"), field(CtfType::s32, "perf_pid");
    if (type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) field(CtfType::u64, "perf_id");
    if (type & PERF_SAMPLE_STREAM_ID) field(CtfType::u64, "perf_stream_id");
    if (type & PERF_SAMPLE_PERIOD) field(CtfType::u64, "perf_period");
    if (type & PERF_SAMPLE_WEIGHT) field(CtfType::u64, "perf_weight");
    if (type & PERF_SAMPLE_DATA_SRC) field(CtfType::u64, "perf_data_src");
    if (type & PERF_SAMPLE_TRANSACTION) field(CtfType::u64, "perf_transaction");
    if (type & PERF_SAMPLE_CALLCHAIN) {
      field(CtfType::u32, "perf_callchain_size");
      out += fmt::format("\t\t{} perf_callchain[perf_callchain_size];\n", ctf_type_text(CtfType::u64_hex));
    }
    append_ctf_declarations(out, klass.fields);
    if (klass.bpf_output) {
      field(CtfType::u32, "raw_len");
      out += fmt::format("\t\t{} raw_data[raw_len];\n", ctf_type_text(CtfType::u32_hex));
    }
    out += "\t} align(8);\n};\n\n";
  }
  if (options_.all) {
    size_t id = classes_.size();
    auto klass = [&](std::string_view name,
                     std::initializer_list<std::pair<CtfType, std::string_view>> fields) {
      out += fmt::format("event {{\n\tid = {};\n\tname = \"{}\";\n\tstream_id = 0;\n\tfields := struct {{\n",
                         id++, name);
      for (const auto& [type, field_name] : fields)
        out += fmt::format("\t\t{} {};\n", ctf_type_text(type), field_name);
      out += "\t} align(8);\n};\n\n";
    };
    using F = CtfType;
    klass("perf_comm", {{F::u32, "pid"}, {F::u32, "tid"}, {F::string, "comm"}});
    for (std::string_view name : {"perf_exit", "perf_fork"})
      klass(name, {{F::u32, "pid"}, {F::u32, "ppid"}, {F::u32, "tid"}, {F::u32, "ptid"}, {F::u64, "time"}});
    for (std::string_view name : {"perf_mmap", "perf_mmap2"})
      klass(name, {{F::u32, "pid"}, {F::u32, "tid"}, {F::u64_hex, "start"}, {F::string, "filename"}});
  }
  return out;
}

}  // namespace sonde::output
