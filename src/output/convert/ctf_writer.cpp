#include "output/convert/ctf_writer.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <random>

#include "output/convert/tracepoint_values.hpp"

namespace sonde::output {

namespace {

constexpr uint32_t kPacketMagic = 0xC1FC1FC1;
constexpr size_t kPacketHeaderSize = 4 + 16 + 4;  // magic, uuid, stream_id
constexpr size_t kPacketContextSize = 5 * 8 + 4;  // begin, end, sizes, discarded, cpu_id
constexpr uint64_t kEventsPerPacket = 100000;     // perf's STREAM_FLUSH_COUNT

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

std::string integer_text(unsigned size, bool is_signed, bool hex) {
  return fmt::format(
      "integer {{ size = {}; align = 1; signed = {}; encoding = none; base = {}; byte_order = le; }}", size,
      is_signed ? "true" : "false", hex ? "hexadecimal" : "decimal");
}

std::string uuid_text(const uint8_t* id) {
  return fmt::format(
      "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
      id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7], id[8], id[9], id[10], id[11], id[12], id[13],
      id[14], id[15]);
}

}  // namespace

std::vector<CtfTracepointField> ctf_tracepoint_fields(const tep_event& format,
                                                      std::vector<std::string>& taken) {
  std::vector<CtfTracepointField> fields;
  for (tep_format_field* list : {format.format.common_fields, format.format.fields}) {
    for (tep_format_field* field = list; field != nullptr; field = field->next) {
      unsigned long flags = field->flags;
      CtfTracepointField entry{field, field->name, CtfType::u32, false};
      if (flags & TEP_FIELD_IS_STRING)
        entry.type = CtfType::string;
      else if (!(flags & TEP_FIELD_IS_SIGNED) && (flags & (TEP_FIELD_IS_LONG | TEP_FIELD_IS_POINTER)))
        entry.type = CtfType::u64_hex;
      else if (flags & TEP_FIELD_IS_SIGNED)
        entry.type = field->size == 8 ? CtfType::s64 : CtfType::s32;
      else
        entry.type = field->size == 8 ? CtfType::u64 : CtfType::u32;
      entry.array = (flags & TEP_FIELD_IS_ARRAY) && !(flags & TEP_FIELD_IS_STRING);
      if (tsdl_keyword(entry.name)) entry.name = "_" + entry.name;
      for (int dup = 1; std::find(taken.begin(), taken.end(), entry.name) != taken.end(); ++dup)
        entry.name = fmt::format("{}_dupl_{}", field->name, dup);
      taken.push_back(entry.name);
      fields.push_back(std::move(entry));
    }
  }
  return fields;
}

void put_ctf_tracepoint_fields(std::string& out, const std::vector<CtfTracepointField>& fields,
                               const uint8_t* raw, size_t size) {
  for (const CtfTracepointField& field : fields) {
    const tep_format_field* format = field.format;
    FieldPlace place = field_place(*format, raw, size);
    if (field.type == CtfType::string) {
      put_ctf_string(out, field_string(raw, size, place.offset));
      continue;
    }
    size_t items = field.array ? static_cast<size_t>(format->arraylen) : 1;
    if (field.array && items > 0) place.length = static_cast<size_t>(format->size) / items;
    for (size_t i = 0; i < items; ++i) {
      uint64_t value = field_number(raw, size, place.offset + i * place.length, place.length,
                                    (format->flags & TEP_FIELD_IS_SIGNED) != 0);
      switch (field.type) {
        case CtfType::u32:
        case CtfType::s32:
        case CtfType::u32_hex:
          put_ctf<uint32_t>(out, static_cast<uint32_t>(value));
          break;
        default:
          put_ctf<uint64_t>(out, value);
      }
    }
  }
}

void append_ctf_declarations(std::string& out, const std::vector<CtfTracepointField>& fields) {
  for (const CtfTracepointField& field : fields) {
    if (field.array)
      out += fmt::format("\t\t{} {}[{}];\n", ctf_type_text(field.type), field.name, field.format->arraylen);
    else
      out += fmt::format("\t\t{} {};\n", ctf_type_text(field.type), field.name);
  }
}

void put_ctf_string(std::string& out, std::string_view text) {
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f)
      out.push_back(c);
    else
      out.append(fmt::format("\\x{:02x}", byte));
  }
  out.push_back('\0');
}

std::string ctf_type_text(CtfType type) {
  switch (type) {
    case CtfType::u32:
      return integer_text(32, false, false);
    case CtfType::s32:
      return integer_text(32, true, false);
    case CtfType::u64:
      return integer_text(64, false, false);
    case CtfType::s64:
      return integer_text(64, true, false);
    case CtfType::u64_hex:
      return integer_text(64, false, true);
    case CtfType::u32_hex:
      return integer_text(32, false, true);
    case CtfType::string:
      return "string { encoding = UTF8; }";
  }
  return {};
}

std::string ctf_quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

Result<CtfWriter> CtfWriter::create(std::string directory, size_t cpus) {
  CtfWriter writer;
  writer.directory_ = std::move(directory);
  writer.streams_.resize(std::max<size_t>(cpus, 1));
  std::random_device random;
  for (auto& byte : writer.uuid_) byte = static_cast<uint8_t>(random());
  if (::mkdir(writer.directory_.c_str(), 0750) != 0 && errno != EEXIST)
    return fail_errno(errno, fmt::format("cannot create the CTF directory '{}'", writer.directory_));
  return writer;
}

CtfWriter::CtfWriter(CtfWriter&& other) noexcept { *this = std::move(other); }

CtfWriter& CtfWriter::operator=(CtfWriter&& other) noexcept {
  if (this == &other) return *this;
  for (Stream& stream : streams_)
    if (stream.fd >= 0) ::close(stream.fd);
  directory_ = std::move(other.directory_);
  streams_ = std::move(other.streams_);
  other.streams_.clear();  // their fds are ours now
  std::copy(std::begin(other.uuid_), std::end(other.uuid_), std::begin(uuid_));
  status_ = std::move(other.status_);
  last_real_time_ = other.last_real_time_;
  bytes_ = other.bytes_;
  return *this;
}

CtfWriter::~CtfWriter() {
  for (Stream& stream : streams_)
    if (stream.fd >= 0) ::close(stream.fd);
}

std::string* CtfWriter::begin_event(uint32_t cpu, uint32_t id, uint64_t time) {
  if (!status_) return nullptr;
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
  put_ctf<uint32_t>(stream.events, id);
  put_ctf<uint64_t>(stream.events, time);
  return &stream.events;
}

Result<void> CtfWriter::flush(uint32_t cpu) {
  Stream& stream = streams_[cpu];
  if (stream.count == 0) return {};
  if (stream.fd < 0) {
    std::string path = fmt::format("{}/perf_stream_{}", directory_, cpu);
    stream.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (stream.fd < 0) return fail_errno(errno, fmt::format("cannot create '{}'", path));
  }
  std::string packet;
  packet.reserve(kPacketHeaderSize + kPacketContextSize);
  put_ctf<uint32_t>(packet, kPacketMagic);
  packet.append(reinterpret_cast<const char*>(uuid_), sizeof uuid_);
  put_ctf<uint32_t>(packet, 0);  // stream_id
  uint64_t bits = (kPacketHeaderSize + kPacketContextSize + stream.events.size()) * 8;
  put_ctf<uint64_t>(packet, stream.first_time);
  put_ctf<uint64_t>(packet, stream.last_time);
  put_ctf<uint64_t>(packet, bits);  // content_size
  put_ctf<uint64_t>(packet, bits);  // packet_size
  put_ctf<uint64_t>(packet, 0);     // events_discarded
  put_ctf<uint32_t>(packet, cpu);
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

Result<void> CtfWriter::finish(const Environment& environment, int64_t clock_offset,
                               std::string_view event_classes) {
  if (!status_) return status_;
  for (uint32_t cpu = 0; cpu < streams_.size(); ++cpu)
    if (auto flushed = flush(cpu); !flushed) return flushed;
  std::string text = metadata(environment, clock_offset);
  text += event_classes;
  std::string path = directory_ + "/metadata";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return fail_errno(errno, fmt::format("cannot create '{}'", path));
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) return fail_errno(errno, fmt::format("writing '{}'", path));
  bytes_ += text.size();
  return {};
}

std::string CtfWriter::metadata(const Environment& environment, int64_t clock_offset) const {
  std::string out = "/* CTF 1.8 */\n\ntrace {\n\tmajor = 1;\n\tminor = 8;\n";
  out +=
      fmt::format("\tuuid = \"{}\";\n\tbyte_order = le;\n\tpacket.header := struct {{\n", uuid_text(uuid_));
  out += fmt::format("\t\t{} magic;\n", integer_text(32, false, false));
  out += fmt::format(
      "\t\tinteger {{ size = 8; align = 8; signed = false; encoding = none; base = decimal; "
      "byte_order = le; }} uuid[16];\n");
  out += fmt::format("\t\t{} stream_id;\n\t}} align(8);\n}};\n\n", integer_text(32, false, false));
  out += fmt::format(
      "env {{\n\thost = {};\n\tsysname = \"Linux\";\n\trelease = {};\n\tversion = {};\n"
      "\tmachine = {};\n\tdomain = \"kernel\";\n\ttracer_name = \"perf\";\n}};\n\n",
      ctf_quoted(environment.hostname), ctf_quoted(environment.release), ctf_quoted(environment.version),
      ctf_quoted(environment.machine));
  uint8_t clock_uuid[16];
  for (size_t i = 0; i < sizeof clock_uuid; ++i) clock_uuid[i] = static_cast<uint8_t>(uuid_[i] ^ 0x5a);
  out += fmt::format(
      "clock {{\n\tname = perf_clock;\n\tuuid = \"{}\";\n\tdescription = \"perf clock\";\n"
      "\tfreq = 1000000000;\n\tprecision = 10;\n\toffset_s = 0;\n\toffset = {};\n"
      "\tabsolute = FALSE;\n}};\n\n",
      uuid_text(clock_uuid), clock_offset);
  out += "stream {\n\tid = 0;\n\tevent.header := struct {\n";
  out += fmt::format("\t\t{} id;\n", integer_text(32, false, false));
  out +=
      "\t\tinteger { size = 64; align = 8; signed = false; encoding = none; base = decimal; byte_order = le; "
      "map = clock.perf_clock.value; } timestamp;\n\t} align(8);\n\n\tpacket.context := struct {\n";
  for (const char* name :
       {"timestamp_begin", "timestamp_end", "content_size", "packet_size", "events_discarded"})
    out += fmt::format("\t\t{} {};\n", integer_text(64, false, false), name);
  out += fmt::format("\t\t{} cpu_id;\n\t}} align(8);\n}};\n\n", integer_text(32, false, false));
  return out;
}

}  // namespace sonde::output
