// libFuzzer target for the ftrace payload printing of `sonde ftrace report` and `ftrace stream`
// (src/tracedat/event_formatter.cpp and payload_printer.cpp) over the formats of a real tracefs:
// tracefs_formats.txt.gz holds every event format of a 6.18 kernel (2,525 events, "==> SYSTEM"
// before each), parsed once into a libtraceevent handle. One input is the payload of one record
// (its common_type picks the event); the EventFormatter prints its line as the report does:
// sonde's compiled printer where the format allows, libtraceevent's tep_print_event otherwise.
// A payload shorter than its fields, __data_loc offsets and lengths pointing anywhere, strings
// without their NUL, unknown types: all must print or be named damaged. The record sits in a
// buffer as the reader's pages do, zeros after it (record_merger's padding).
#include <traceevent/event-parse.h>
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "tracedat/event_formatter.hpp"

using namespace sonde;

namespace {

constexpr size_t kMaxInput = 65536;
constexpr size_t kPadding = tracedat::kPayloadPadding;  // as record_merger pads its pages

struct Formats {
  tep_handle* tep = nullptr;
  std::unique_ptr<tracedat::EventFormatter> formatter;
};

std::string read_gzip(const std::string& path) {
  std::string text;
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) return text;
  char buffer[65536];
  int n;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  gzclose(file);
  return text;
}

const Formats& formats() {
  static Formats* loaded = [] {
    auto* f = new Formats;
    f->tep = tep_alloc();
    tep_set_long_size(f->tep, 8);
    tep_set_page_size(f->tep, 4096);
    tep_set_file_bigendian(f->tep, TEP_LITTLE_ENDIAN);
    tep_set_local_bigendian(f->tep, TEP_LITTLE_ENDIAN);
    std::string text = read_gzip(fuzz::data_path("tracefs_formats.txt.gz"));
    fuzz::require(!text.empty(), "payload_printer", "cannot read tracefs_formats.txt.gz");
    constexpr std::string_view kMark = "==> ";
    size_t at = 0;
    while ((at = text.find(kMark, at)) != std::string::npos) {
      size_t line_end = text.find('\n', at);
      std::string system = text.substr(at + kMark.size(), line_end - at - kMark.size());
      size_t next = text.find(kMark, line_end);
      if (next == std::string::npos) next = text.size();
      tep_parse_event(f->tep, text.data() + line_end + 1, next - line_end - 1, system.c_str());
      at = next;
    }
    tep_event** all = tep_list_events(f->tep, TEP_EVENT_SORT_ID);
    size_t parsed = 0;
    while (all && all[parsed]) ++parsed;
    fuzz::require(parsed > 2000, "payload_printer", "fewer formats parsed than tracefs_formats.txt.gz has");
    tracedat::FormatOptions options;
    // Symbols a print fmt names (e.g. vmemmap_base) get a made-up kernel address.
    options.symbol_address = [](std::string_view) { return 0xffffffff82000000ull; };
    f->formatter = std::make_unique<tracedat::EventFormatter>(f->tep, options);
    return f;
  }();
  return *loaded;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Formats& f = formats();
  // As the trace.dat reader holds pages: zeros after the record, so that what libtraceevent reads
  // past a string without its NUL (it prints __get_str with "%s") stays in the buffer and ends.
  static std::vector<uint8_t> page(kMaxInput + kPadding);
  if (size > kMaxInput) return 0;
  std::memcpy(page.data(), data, size);
  tep_record record{};
  record.data = size ? page.data() : nullptr;
  record.size = static_cast<int>(size);
  record.record_size = record.size;
  record.ts = 1'000'000'000;
  std::string out;
  f.formatter->format(record, out);
  std::memset(page.data(), 0, size);
  fuzz::require(!out.empty() && out.back() == '\n', "payload_printer",
                "a record printed without its line end");
  return 0;
}
