#include "output/convert/ctf_trace.hpp"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>

#include "base/bytes.hpp"
#include "output/convert/tracepoint_values.hpp"

namespace sonde::output {

namespace {

constexpr uint32_t kPacketMagic = 0xC1FC1FC1;
constexpr size_t kPacketHeaderSize = 4 + 16 + 4;  // magic, uuid, stream_id
constexpr size_t kPacketContextSize = 5 * 8 + 4;  // begin, end, sizes, discarded, cpu_id
constexpr uint64_t kEventsPerPacket = 100000;     // perf's STREAM_FLUSH_COUNT
constexpr unsigned kMaxCpus = 4096;

// The identifiers TSDL reserves: perf puts "_" before a field so named.
bool tsdl_keyword(std::string_view name) {
  static constexpr std::string_view kKeywords[] = {
      "align",   "callsite", "const",          "char",   "clock",   "double",   "enum",
      "env",     "event",    "floating_point", "float",  "integer", "int",      "long",
      "short",   "signed",   "stream",         "string", "struct",  "trace",    "typealias",
      "typedef", "unsigned", "variant",        "void",   "_Bool",   "_Complex", "_Imaginary"};
  for (std::string_view keyword : kKeywords)
    if (name == keyword) return true;
  return false;
}

template <typename T>
void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// perf's string_set_value: unprintable bytes as \xNN.
void put_string(std::string& out, std::string_view text) {
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f)
      out.push_back(c);
    else
      out.append(fmt::format("\\x{:02x}", byte));
  }
  out.push_back('\0');
}

}  // namespace

CtfTrace::CtfTrace(session::Session& session, std::string directory, Options options)
    : session_(session), directory_(std::move(directory)), options_(options) {}

CtfTrace::~CtfTrace() {
  for (Stream& stream : streams_)
    if (stream.fd >= 0) ::close(stream.fd);
}

Result<std::unique_ptr<CtfTrace>> CtfTrace::create(session::Session& session, const std::string& directory,
                                                   Options options) {
  if (options.tod && !session.reader().features().clock_data)
    return fail("--tod needs the recording's clock data: record with -k/--clockid (perf record -k mono)");
  std::unique_ptr<CtfTrace> trace(new CtfTrace(session, directory, options));
  if (auto prepared = trace->prepare(); !prepared) return tl::unexpected(prepared.error());
  return trace;
}

Result<void> CtfTrace::prepare() {
  std::random_device random;
  for (auto& byte : uuid_) byte = static_cast<uint8_t>(random());
  if (::mkdir(directory_.c_str(), 0750) != 0 && errno != EEXIST)
    return fail_errno(errno, fmt::format("cannot create the CTF directory '{}'", directory_));
  return {};
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
    for (tep_format_field* list : {format->format.common_fields, format->format.fields}) {
      for (tep_format_field* field = list; field != nullptr; field = field->next) {
        unsigned long flags = field->flags;
        TracepointField entry{field, field->name, FieldType::u32, false};
        if (flags & TEP_FIELD_IS_STRING)
          entry.type = FieldType::string;
        else if (!(flags & TEP_FIELD_IS_SIGNED) && (flags & (TEP_FIELD_IS_LONG | TEP_FIELD_IS_POINTER)))
          entry.type = FieldType::u64_hex;
        else if (flags & TEP_FIELD_IS_SIGNED)
          entry.type = field->size == 8 ? FieldType::s64 : FieldType::s32;
        else
          entry.type = field->size == 8 ? FieldType::u64 : FieldType::u32;
        entry.array = (flags & TEP_FIELD_IS_ARRAY) && !(flags & TEP_FIELD_IS_STRING);
        if (tsdl_keyword(entry.name)) entry.name = "_" + entry.name;
        for (int dup = 1; std::find(taken.begin(), taken.end(), entry.name) != taken.end(); ++dup)
          entry.name = fmt::format("{}_dupl_{}", field->name, dup);
        taken.push_back(entry.name);
        klass.fields.push_back(std::move(entry));
      }
    }
  }
  const auto& nr_cpus = session_.reader().features().nr_cpus;
  streams_.resize(nr_cpus && nr_cpus->available > 0 ? nr_cpus->available : kMaxCpus);
}

void CtfTrace::on_sample(const session::SampleEvent& sample) {
  // A pipe's events and formats arrive as records ahead of its samples: the classes wait.
  if (!classes_ready_) make_classes();
  if (!status_ || sample.event_index >= classes_.size()) return;
  const perfdata::Sample& s = sample.sample;
  const EventClass& klass = classes_[sample.event_index];
  uint32_t cpu = (klass.sample_type & PERF_SAMPLE_CPU) ? s.cpu : 0;
  ++samples_;
  // CTF readers take stamps as signed nanoseconds: past INT64_MAX a stream cannot be read. An
  // off-CPU recording's totals carry such made-up stamps (near 2^64, after every real one):
  // they are written at the last real stamp, the end of the recording.
  uint64_t time = s.has(PERF_SAMPLE_TIME) ? s.time : 0;
  std::string* events = begin_event(cpu, static_cast<uint32_t>(sample.event_index), time);
  if (events == nullptr) return;
  std::string& out = *events;
  uint64_t type = klass.sample_type;
  if (type & PERF_SAMPLE_IP) put<uint64_t>(out, s.ip);
  if (type & PERF_SAMPLE_TID) {
    put<int32_t>(out, static_cast<int32_t>(s.tid));
    put<int32_t>(out, static_cast<int32_t>(s.pid));
  }
  if (type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) put<uint64_t>(out, s.id);
  if (type & PERF_SAMPLE_STREAM_ID) put<uint64_t>(out, s.stream_id);
  if (type & PERF_SAMPLE_PERIOD) put<uint64_t>(out, s.period);
  if (type & PERF_SAMPLE_WEIGHT) put<uint64_t>(out, s.weight);
  if (type & PERF_SAMPLE_DATA_SRC) put<uint64_t>(out, s.data_src);
  if (type & PERF_SAMPLE_TRANSACTION) put<uint64_t>(out, s.transaction);
  if (type & PERF_SAMPLE_CALLCHAIN) {
    put<uint32_t>(out, static_cast<uint32_t>(s.callchain.size()));
    for (size_t i = 0; i < s.callchain.size(); ++i) put<uint64_t>(out, s.callchain[i]);
  }
  const uint8_t* raw = s.raw.data();
  size_t raw_size = s.raw.size();
  for (const TracepointField& field : klass.fields) {
    const tep_format_field* format = field.format;
    FieldPlace place = field_place(*format, raw, raw_size);
    if (field.type == FieldType::string) {
      put_string(out, field_string(raw, raw_size, place.offset));
      continue;
    }
    size_t items = field.array ? static_cast<size_t>(format->arraylen) : 1;
    if (field.array && items > 0) place.length = static_cast<size_t>(format->size) / items;
    for (size_t i = 0; i < items; ++i) {
      uint64_t value = field_number(raw, raw_size, place.offset + i * place.length, place.length,
                                    (format->flags & TEP_FIELD_IS_SIGNED) != 0);
      switch (field.type) {
        case FieldType::u32:
        case FieldType::s32:
        case FieldType::u32_hex:
          put<uint32_t>(out, static_cast<uint32_t>(value));
          break;
        default:
          put<uint64_t>(out, value);
      }
    }
  }
  if (klass.bpf_output) {
    uint32_t words = static_cast<uint32_t>(raw_size / 4);
    put<uint32_t>(out, words);
    for (uint32_t i = 0; i < words; ++i) put<uint32_t>(out, load<uint32_t>(raw + 4 * i));
  }
}

std::string* CtfTrace::begin_event(uint32_t cpu, uint32_t id, uint64_t time) {
  if (cpu >= streams_.size()) cpu = 0;
  Stream& stream = streams_[cpu];
  if (stream.count >= kEventsPerPacket) {
    if (status_ = flush(cpu); !status_) return nullptr;
  }
  if (time > INT64_MAX)
    time = last_real_time_;
  else
    last_real_time_ = std::max(last_real_time_, time);
  if (stream.count++ == 0) stream.first_time = time;
  stream.last_time = time;
  put<uint32_t>(stream.events, id);
  put<uint64_t>(stream.events, time);
  return &stream.events;
}

Result<void> CtfTrace::on_record(const perfdata::RecordView& record, const perfdata::EventAttr* /*attr*/,
                                 const perfdata::SampleId& id) {
  uint32_t type = record.type();
  if (!options_.all || !status_) return {};
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
    if (!comm || !(out = begin_event(0, base, time))) return {};
    put<uint32_t>(*out, comm->pid);
    put<uint32_t>(*out, comm->tid);
    put_string(*out, comm->comm);
  } else if (type == PERF_RECORD_EXIT || type == PERF_RECORD_FORK) {
    auto task = perfdata::ForkExitRecord::decode(record);
    if (!task || !(out = begin_event(0, base + (type == PERF_RECORD_EXIT ? 1 : 2), time))) return {};
    for (uint32_t value : {task->pid, task->ppid, task->tid, task->ptid}) put<uint32_t>(*out, value);
    put<uint64_t>(*out, task->time);
  } else if (type == PERF_RECORD_MMAP) {
    auto map = perfdata::MmapRecord::decode(record);
    if (!map || !(out = begin_event(0, base + 3, time))) return {};
    put<uint32_t>(*out, map->pid);
    put<uint32_t>(*out, map->tid);
    put<uint64_t>(*out, map->addr);
    put_string(*out, map->filename);
  } else {
    auto map = perfdata::Mmap2Record::decode(record);
    if (!map || !(out = begin_event(0, base + 4, time))) return {};
    put<uint32_t>(*out, map->pid);
    put<uint32_t>(*out, map->tid);
    put<uint64_t>(*out, map->addr);
    put_string(*out, map->filename);
  }
  ++non_samples_;
  return {};
}

Result<void> CtfTrace::flush(uint32_t cpu) {
  Stream& stream = streams_[cpu];
  if (stream.count == 0) return {};
  if (stream.fd < 0) {
    std::string path = fmt::format("{}/perf_stream_{}", directory_, cpu);
    stream.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
    if (stream.fd < 0) return fail_errno(errno, fmt::format("cannot create '{}'", path));
  }
  std::string packet;
  packet.reserve(kPacketHeaderSize + kPacketContextSize);
  put<uint32_t>(packet, kPacketMagic);
  packet.append(reinterpret_cast<const char*>(uuid_), sizeof uuid_);
  put<uint32_t>(packet, 0);  // stream_id
  uint64_t bits = (kPacketHeaderSize + kPacketContextSize + stream.events.size()) * 8;
  put<uint64_t>(packet, stream.first_time);
  put<uint64_t>(packet, stream.last_time);
  put<uint64_t>(packet, bits);  // content_size
  put<uint64_t>(packet, bits);  // packet_size
  put<uint64_t>(packet, 0);     // events_discarded
  put<uint32_t>(packet, cpu);
  for (const std::string* part : {&packet, &stream.events}) {
    const char* at = part->data();
    size_t left = part->size();
    while (left > 0) {
      ssize_t written = ::write(stream.fd, at, left);
      if (written < 0 && errno == EINTR) continue;
      if (written < 0)
        return fail_errno(errno, fmt::format("writing perf_stream_{} in '{}'", cpu, directory_));
      at += written;
      left -= static_cast<size_t>(written);
    }
    bytes_ += part->size();
  }
  stream.events.clear();
  stream.count = 0;
  return {};
}

Result<void> CtfTrace::finish() {
  if (!status_) return status_;
  if (!classes_ready_) make_classes();
  for (uint32_t cpu = 0; cpu < streams_.size(); ++cpu)
    if (auto flushed = flush(cpu); !flushed) return flushed;
  std::string text = metadata();
  std::string path = directory_ + "/metadata";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
  if (fd < 0) return fail_errno(errno, fmt::format("cannot create '{}'", path));
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) return fail_errno(errno, fmt::format("writing '{}'", path));
  bytes_ += text.size();
  return {};
}

std::string CtfTrace::metadata() const {
  auto integer = [](unsigned size, bool is_signed, bool hex) {
    return fmt::format(
        "integer {{ size = {}; align = 1; signed = {}; encoding = none; base = {}; byte_order = le; }}", size,
        is_signed ? "true" : "false", hex ? "hexadecimal" : "decimal");
  };
  auto type_text = [&](FieldType type) -> std::string {
    switch (type) {
      case FieldType::u32:
        return integer(32, false, false);
      case FieldType::s32:
        return integer(32, true, false);
      case FieldType::u64:
        return integer(64, false, false);
      case FieldType::s64:
        return integer(64, true, false);
      case FieldType::u64_hex:
        return integer(64, false, true);
      case FieldType::u32_hex:
        return integer(32, false, true);
      case FieldType::string:
        return "string { encoding = UTF8; }";
    }
    return {};
  };
  auto uuid_text = [](const uint8_t* id) {
    return fmt::format(
        "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:"
        "02x}",
        id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7], id[8], id[9], id[10], id[11], id[12], id[13],
        id[14], id[15]);
  };
  auto quoted = [](std::string_view text) {
    std::string out = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    return out + "\"";
  };
  const perfdata::FeatureSet& f = session_.reader().features();
  std::string out = "/* CTF 1.8 */\n\ntrace {\n\tmajor = 1;\n\tminor = 8;\n";
  out +=
      fmt::format("\tuuid = \"{}\";\n\tbyte_order = le;\n\tpacket.header := struct {{\n", uuid_text(uuid_));
  out += fmt::format("\t\t{} magic;\n", integer(32, false, false));
  out += fmt::format(
      "\t\tinteger {{ size = 8; align = 8; signed = false; encoding = none; base = decimal; "
      "byte_order = le; }} uuid[16];\n");
  out += fmt::format("\t\t{} stream_id;\n\t}} align(8);\n}};\n\n", integer(32, false, false));
  out += fmt::format(
      "env {{\n\thost = {};\n\tsysname = \"Linux\";\n\trelease = {};\n\tversion = {};\n"
      "\tmachine = {};\n\tdomain = \"kernel\";\n\ttracer_name = \"perf\";\n}};\n\n",
      quoted(f.hostname.value_or("")), quoted(f.os_release.value_or("")), quoted(f.version.value_or("")),
      quoted(f.arch.value_or("")));
  // --tod: the wall-clock time at the sampling clock's zero (perf's tod_ns - clockid_ns).
  int64_t clock_offset = options_.tod && f.clock_data
                             ? static_cast<int64_t>(f.clock_data->tod_ns - f.clock_data->clockid_ns)
                             : 0;
  uint8_t clock_uuid[16];
  for (size_t i = 0; i < sizeof clock_uuid; ++i) clock_uuid[i] = static_cast<uint8_t>(uuid_[i] ^ 0x5a);
  out += fmt::format(
      "clock {{\n\tname = perf_clock;\n\tuuid = \"{}\";\n\tdescription = \"perf clock\";\n"
      "\tfreq = 1000000000;\n\tprecision = 10;\n\toffset_s = 0;\n\toffset = {};\n"
      "\tabsolute = FALSE;\n}};\n\n",
      uuid_text(clock_uuid), clock_offset);
  out += "stream {\n\tid = 0;\n\tevent.header := struct {\n";
  out += fmt::format("\t\t{} id;\n", integer(32, false, false));
  out +=
      "\t\tinteger { size = 64; align = 8; signed = false; encoding = none; base = decimal; byte_order = le; "
      "map = clock.perf_clock.value; } timestamp;\n\t} align(8);\n\n\tpacket.context := struct {\n";
  for (const char* name :
       {"timestamp_begin", "timestamp_end", "content_size", "packet_size", "events_discarded"})
    out += fmt::format("\t\t{} {};\n", integer(64, false, false), name);
  out += fmt::format("\t\t{} cpu_id;\n\t}} align(8);\n}};\n\n", integer(32, false, false));
  for (size_t id = 0; id < classes_.size(); ++id) {
    const EventClass& klass = classes_[id];
    out += fmt::format("event {{\n\tid = {};\n\tname = {};\n\tstream_id = 0;\n\tfields := struct {{\n", id,
                       quoted(klass.name));
    auto field = [&](FieldType type, std::string_view name) {
      out += fmt::format("\t\t{} {};\n", type_text(type), name);
    };
    uint64_t type = klass.sample_type;
    if (type & PERF_SAMPLE_IP) field(FieldType::u64_hex, "perf_ip");
    if (type & PERF_SAMPLE_TID) field(FieldType::s32, "perf_tid"), field(FieldType::s32, "perf_pid");
    if (type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) field(FieldType::u64, "perf_id");
    if (type & PERF_SAMPLE_STREAM_ID) field(FieldType::u64, "perf_stream_id");
    if (type & PERF_SAMPLE_PERIOD) field(FieldType::u64, "perf_period");
    if (type & PERF_SAMPLE_WEIGHT) field(FieldType::u64, "perf_weight");
    if (type & PERF_SAMPLE_DATA_SRC) field(FieldType::u64, "perf_data_src");
    if (type & PERF_SAMPLE_TRANSACTION) field(FieldType::u64, "perf_transaction");
    if (type & PERF_SAMPLE_CALLCHAIN) {
      field(FieldType::u32, "perf_callchain_size");
      out += fmt::format("\t\t{} perf_callchain[perf_callchain_size];\n", type_text(FieldType::u64_hex));
    }
    for (const TracepointField& tracepoint : klass.fields) {
      if (tracepoint.array)
        out += fmt::format("\t\t{} {}[{}];\n", type_text(tracepoint.type), tracepoint.name,
                           tracepoint.format->arraylen);
      else
        field(tracepoint.type, tracepoint.name);
    }
    if (klass.bpf_output) {
      field(FieldType::u32, "raw_len");
      out += fmt::format("\t\t{} raw_data[raw_len];\n", type_text(FieldType::u32_hex));
    }
    out += "\t} align(8);\n};\n\n";
  }
  if (options_.all) {
    size_t id = classes_.size();
    auto klass = [&](std::string_view name,
                     std::initializer_list<std::pair<FieldType, std::string_view>> fields) {
      out += fmt::format("event {{\n\tid = {};\n\tname = \"{}\";\n\tstream_id = 0;\n\tfields := struct {{\n",
                         id++, name);
      for (const auto& [type, field_name] : fields)
        out += fmt::format("\t\t{} {};\n", type_text(type), field_name);
      out += "\t} align(8);\n};\n\n";
    };
    using F = FieldType;
    klass("perf_comm", {{F::u32, "pid"}, {F::u32, "tid"}, {F::string, "comm"}});
    for (std::string_view name : {"perf_exit", "perf_fork"})
      klass(name, {{F::u32, "pid"}, {F::u32, "ppid"}, {F::u32, "tid"}, {F::u32, "ptid"}, {F::u64, "time"}});
    for (std::string_view name : {"perf_mmap", "perf_mmap2"})
      klass(name, {{F::u32, "pid"}, {F::u32, "tid"}, {F::u64_hex, "start"}, {F::string, "filename"}});
  }
  return out;
}

}  // namespace sonde::output
