#include "session/tracepoint_formats.hpp"

#include <fmt/format.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "format/event_format_text.hpp"
#include "format/tep_payload.hpp"

namespace sonde::session {

namespace {

constexpr std::string_view kMagic = "\x17\x08\x44tracing";

template <typename T>
T swapped(T value) {
  if constexpr (sizeof(T) == 8) return static_cast<T>(__builtin_bswap64(value));
  if constexpr (sizeof(T) == 4) return static_cast<T>(__builtin_bswap32(value));
  if constexpr (sizeof(T) == 2) return static_cast<T>(__builtin_bswap16(value));
  return value;
}

// Reads the blob in the byte order it was written in (its endian byte says which).
class BlobCursor {
 public:
  explicit BlobCursor(sonde::Bytes bytes) : bytes_(bytes) {}
  void set_swap(bool swap) { swap_ = swap; }

  template <typename T>
  Result<T> number(const char* what) {
    if (bytes_.size() - offset_ < sizeof(T)) return failf("the tracing data ends inside {}", what);
    T value = sonde::load<T>(bytes_.data() + offset_);
    offset_ += sizeof(T);
    return swap_ ? swapped(value) : value;
  }
  Result<std::string_view> bytes(uint64_t size, const char* what) {
    if (bytes_.size() - offset_ < size) return failf("the tracing data ends inside {}", what);
    std::string_view out(reinterpret_cast<const char*>(bytes_.data() + offset_), size);
    offset_ += size;
    return out;
  }
  Result<std::string_view> cstring(const char* what) {
    const char* start = reinterpret_cast<const char*>(bytes_.data() + offset_);
    size_t left = bytes_.size() - offset_;
    const void* nul = std::memchr(start, '\0', left);
    if (nul == nullptr) return failf("the tracing data ends inside {}", what);
    size_t length = static_cast<size_t>(static_cast<const char*>(nul) - start);
    offset_ += length + 1;
    return std::string_view(start, length);
  }

 private:
  sonde::Bytes bytes_;
  size_t offset_ = 0;
  bool swap_ = false;
};

}  // namespace

struct TracepointFormats::Handle {
  tep_handle* tep = nullptr;
  trace_seq seq{};
  // A payload is printed from here, zeros after it: libtraceevent prints a __get_str with "%s",
  // and a damaged string without its NUL must end in this buffer, not run on past the file.
  std::vector<uint8_t> padded;
  // Each event's shape, worked out at its first payload: most are checked by their size alone.
  std::unordered_map<const tep_event*, tracedat::PayloadShape> shapes;
  Handle() {
    tep = tep_alloc();
    trace_seq_init(&seq);
  }
  ~Handle() {
    trace_seq_destroy(&seq);
    if (tep != nullptr) tep_free(tep);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};

TracepointFormats::TracepointFormats() : handle_(std::make_unique<Handle>()) {}
TracepointFormats::TracepointFormats(TracepointFormats&&) noexcept = default;
TracepointFormats& TracepointFormats::operator=(TracepointFormats&&) noexcept = default;
TracepointFormats::~TracepointFormats() = default;

Result<TracepointFormats> TracepointFormats::parse(sonde::Bytes blob) {
  TracepointFormats formats;
  tep_handle* tep = formats.handle_->tep;
  if (tep == nullptr) return fail("cannot allocate a libtraceevent handle");
  BlobCursor in(blob);
  auto magic = in.bytes(kMagic.size(), "its magic");
  if (!magic || *magic != kMagic) return fail("the tracing data does not start with perf's magic");
  auto version = in.cstring("its version");
  if (!version) return tl::unexpected(version.error());
  bool has_cmdlines = std::string_view(*version) >= "0.6";
  auto endian = in.number<uint8_t>("its endianness");
  auto long_size = in.number<uint8_t>("its long size");
  if (!endian || !long_size) return fail("the tracing data ends inside its header");
  bool big_endian = *endian != 0;
  in.set_swap(big_endian != (std::endian::native == std::endian::big));
  auto page_size = in.number<uint32_t>("its page size");
  if (!page_size) return tl::unexpected(page_size.error());
  tep_set_file_bigendian(tep, big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_local_bigendian(tep, std::endian::native == std::endian::big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_long_size(tep, *long_size);
  tep_set_page_size(tep, static_cast<int>(*page_size));

  for (const char* expected : {"header_page", "header_event"}) {
    auto name = in.cstring("a header file name");
    if (!name) return tl::unexpected(name.error());
    if (*name != expected) return failf("the tracing data has '{}' where '{}' belongs", *name, expected);
    auto size = in.number<uint64_t>("a header file size");
    if (!size) return tl::unexpected(size.error());
    auto content = in.bytes(*size, expected);
    if (!content) return tl::unexpected(content.error());
    if (std::string_view(expected) == "header_page") {
      std::string copy(*content);
      tep_parse_header_page(tep, copy.data(), copy.size(), *long_size);
    }
  }

  auto parse_formats = [&](const char* system) -> Result<void> {
    auto count = in.number<uint32_t>("a format count");
    if (!count) return tl::unexpected(count.error());
    for (uint32_t i = 0; i < *count; ++i) {
      auto size = in.number<uint64_t>("a format size");
      if (!size) return tl::unexpected(size.error());
      auto format = in.bytes(*size, "an event format");
      if (!format) return tl::unexpected(format.error());
      // A bad one is skipped; a damaged one is not handed to libtraceevent at all.
      if (tracedat::event_format_is_parseable(*format))
        tep_parse_event(tep, format->data(), format->size(), system);
    }
    return {};
  };
  if (auto r = parse_formats("ftrace"); !r) return tl::unexpected(r.error());
  auto systems = in.number<uint32_t>("the system count");
  if (!systems) return tl::unexpected(systems.error());
  for (uint32_t i = 0; i < *systems; ++i) {
    auto system = in.cstring("a system name");
    if (!system) return tl::unexpected(system.error());
    std::string name(*system);
    if (auto r = parse_formats(name.c_str()); !r) return tl::unexpected(r.error());
  }

  // kallsyms and printk formats: u32 sizes; saved cmdlines (0.6): u64. The tables are optional
  // for printing, so a file cut here still formats its events.
  auto kallsyms_size = in.number<uint32_t>("the kallsyms size");
  if (!kallsyms_size) return formats;
  if (auto kallsyms = in.bytes(*kallsyms_size, "kallsyms"); kallsyms && !kallsyms->empty())
    tep_parse_kallsyms(tep, std::string(*kallsyms).c_str());
  auto printk_size = in.number<uint32_t>("the printk formats size");
  if (!printk_size) return formats;
  if (auto printk = in.bytes(*printk_size, "printk formats"); printk && !printk->empty())
    tep_parse_printk_formats(tep, std::string(*printk).c_str());
  if (has_cmdlines) {
    auto cmdlines_size = in.number<uint64_t>("the saved cmdlines size");
    if (!cmdlines_size) return formats;
    if (auto cmdlines = in.bytes(*cmdlines_size, "saved cmdlines"); cmdlines && !cmdlines->empty())
      tep_parse_saved_cmdlines(tep, std::string(*cmdlines).c_str());
  }
  return formats;
}

tep_event* TracepointFormats::find(uint64_t id) const {
  return tep_find_event(handle_->tep, static_cast<int>(id));
}

std::vector<tep_event*> TracepointFormats::events_by_id() const {
  std::vector<tep_event*> events;
  if (tep_event** sorted = tep_list_events(handle_->tep, TEP_EVENT_SORT_ID))
    for (; *sorted != nullptr; ++sorted) events.push_back(*sorted);
  return events;
}

namespace {

// perf 6.1's tep_print_fields (its libtraceevent's: Debian's newer one prints unsigned fields in
// padded hex): " name=value" for each field, strings as text, other arrays as bytes, pointers
// and longs in hex, other numbers in decimal.
void append_raw_fields(tep_event* event, const uint8_t* data, std::string& out) {
  for (tep_format_field* field = event->format.fields; field != nullptr; field = field->next) {
    out += fmt::format(" {}=", field->name);
    const auto flags = static_cast<unsigned long>(field->flags);
    if (flags & TEP_FIELD_IS_ARRAY) {
      unsigned offset = static_cast<unsigned>(field->offset), length = static_cast<unsigned>(field->size);
      if (flags & TEP_FIELD_IS_DYNAMIC) {
        auto where = static_cast<unsigned>(tep_read_number(event->tep, data + offset, field->size));
        offset = where & 0xffff;
        length = where >> 16;
        if (flags & TEP_FIELD_IS_RELATIVE) offset += static_cast<unsigned>(field->offset + field->size);
      }
      const auto* bytes = data + offset;
      // libtraceevent's is_printable_array: printable or space up to the first NUL.
      bool printable = true;
      for (unsigned i = 0; i < length && bytes[i] != 0 && printable; ++i)
        printable = std::isprint(bytes[i]) || std::isspace(bytes[i]);
      if ((flags & TEP_FIELD_IS_STRING) && printable) {
        out.append(reinterpret_cast<const char*>(bytes),
                   ::strnlen(reinterpret_cast<const char*>(bytes), length));
      } else {
        out += "ARRAY[";
        for (unsigned i = 0; i < length; ++i) out += fmt::format("{}{:02x}", i ? ", " : "", bytes[i]);
        out += ']';
      }
      continue;
    }
    unsigned long long value = tep_read_number(event->tep, data + field->offset, field->size);
    if (flags & TEP_FIELD_IS_POINTER) {
      out += fmt::format("{:#x}", value);
    } else if (flags & TEP_FIELD_IS_SIGNED) {
      switch (field->size) {
        case 4:
          out += (flags & TEP_FIELD_IS_LONG) ? fmt::format("{:#x}", static_cast<uint32_t>(value))
                                             : fmt::format("{}", static_cast<int32_t>(value));
          break;
        case 2:
          out += fmt::format("{:2}", static_cast<int16_t>(value));
          break;
        case 1:
          out += fmt::format("{}", static_cast<int>(static_cast<int8_t>(value)));
          break;
        default:
          out += fmt::format("{}", static_cast<long long>(value));
      }
    } else {
      out += (flags & TEP_FIELD_IS_LONG) ? fmt::format("{:#x}", value) : fmt::format("{}", value);
    }
  }
}

}  // namespace

void TracepointFormats::append_info(int cpu, sonde::Bytes raw, std::string& out, bool raw_fields) {
  std::vector<uint8_t>& padded = handle_->padded;
  if (padded.size() < raw.size() + tracedat::kPayloadPadding)
    padded.assign(raw.size() + tracedat::kPayloadPadding, 0);
  std::copy(raw.begin(), raw.end(), padded.begin());
  tep_record record{};
  record.cpu = cpu;
  record.size = static_cast<int>(raw.size());
  record.data = padded.data();
  // libtraceevent reads the type and every field at its declared place, whatever the size.
  tep_event* event =
      raw.size() >= 2 ? tep_find_event(handle_->tep, tep_data_type(handle_->tep, &record)) : nullptr;
  const tracedat::PayloadShape* shape = nullptr;
  if (event) {
    auto [known, added] = handle_->shapes.try_emplace(event);
    if (added) known->second = tracedat::payload_shape(event);
    shape = &known->second;
  }
  if (event && !tracedat::payload_holds_fields(event, *shape, record.data, record.size)) {
    out += fmt::format("[damaged payload: its {} bytes do not hold the fields of {}:{}]", raw.size(),
                       event->system, event->name);
  } else {
    trace_seq& seq = handle_->seq;
    trace_seq_reset(&seq);
    if (raw_fields && event) {
      append_raw_fields(event, static_cast<const uint8_t*>(record.data), out);
    } else {
      tep_print_event(handle_->tep, &seq, &record, "%s", TEP_PRINT_INFO);
      out.append(seq.buffer, seq.len);
    }
  }
  std::fill_n(padded.begin(), raw.size(), 0);
}

std::string TracepointFormats::qualified_name(const tep_event* event) {
  return fmt::format("{}:{}", event->system, event->name);
}

}  // namespace sonde::session
