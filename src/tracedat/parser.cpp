// trace.dat parsing. Every length in the file is checked against the bytes that hold it, so a
// truncated or corrupt file ends in one error naming what was cut short, never a read past the
// mapping.
#include "tracedat/parser.hpp"

#include <traceevent/event-parse.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>

#include "base/bytes.hpp"
#include "base/strings.hpp"
#include "format/blktrace_event.hpp"
#include "format/event_format_text.hpp"
#include "tracedat/format.hpp"
#include "tracedat/reader.hpp"

namespace sonde::tracedat {

using sonde::ByteReader;
using sonde::Bytes;

namespace {

std::string_view as_text(Bytes bytes) { return {reinterpret_cast<const char*>(bytes.data()), bytes.size()}; }

// A NUL-terminated string inside an option, or the rest of it when the NUL is missing.
std::string option_string(Bytes data, size_t& position) {
  std::string_view rest = as_text(data.subspan(std::min(position, data.size())));
  std::string_view text = rest.substr(0, rest.find('\0'));
  position += text.size() + 1;
  return std::string(text);
}

// trace_clock text "[local] global ..." or "[local]": the bracketed name.
std::string bracketed_clock(std::string_view text) {
  auto open = text.find('[');
  if (open == std::string_view::npos) return {};
  auto close = text.find(']', open);
  if (close == std::string_view::npos) return {};
  return std::string(text.substr(open + 1, close - open - 1));
}

// The "ID: N" line of an event format.
std::optional<int> format_id(std::string_view format) {
  auto at = format.find("\nID: ");
  if (at == std::string_view::npos) return std::nullopt;
  auto id = parse_uint(format.substr(at + 5, format.find('\n', at + 5) - (at + 5)), 10);
  if (!id || *id > 0xffff) return std::nullopt;
  return static_cast<int>(*id);
}

// The clocks whose counts trace-cmd treats as nanoseconds (and prints as seconds.usecs).
bool clock_counts_nanoseconds(const std::string& clock) {
  return clock == "local" || clock == "global" || clock == "uptime" || clock == "perf" ||
         clock.rfind("mono", 0) == 0 || clock == "tsc2nsec" || clock == "tai";
}

}  // namespace

// Does the parsing for TraceDatReader; one object per open().
class TraceDatParser {
  struct BufferOption {
    std::string name;
    uint64_t offset = 0;
    struct Cpu {
      uint32_t id;
      uint64_t offset, size;
    };
    std::vector<Cpu> cpus;  // v7 only: v6 keeps its CPU table next to the data
  };

 public:
  TraceDatParser(TraceDatReader& reader, std::string path)
      : r_(reader), path_(std::move(path)), file_(r_.file_->bytes()) {}

  Result<void> run() {
    ByteReader in(file_);
    auto magic = in.take(kMagic.size());
    if (!magic || as_text(*magic) != kMagic)
      return failf("{} is not a trace.dat file (no trace-cmd magic at its start)", path_);
    std::string version = read_cstring(in);
    if (version != "6" && version != "7")
      return failf("{}: trace.dat version '{}' is not supported (sonde reads versions 6 and 7)", path_,
                   message_excerpt(version));
    r_.version_ = version[0] - '0';
    auto endian = in.read<uint8_t>();
    auto long_size = in.read<uint8_t>();
    auto page_size = in.read<uint32_t>();
    if (!page_size) return truncated("the file header");
    if (*endian != 0) return failf("{}: big-endian trace.dat files are not supported", path_);
    if (*page_size == 0 || (*page_size & (*page_size - 1)) != 0 || *page_size > (1u << 24))
      return failf("{}: corrupt trace.dat: page size {}", path_, *page_size);
    r_.page_size_ = *page_size;
    r_.contents_.page_size = *page_size;
    long_size_ = *long_size;

    r_.tep_ = tep_alloc();
    if (!r_.tep_) return failf("{}: out of memory for the event parser", path_);
    tep_set_file_bigendian(r_.tep_, TEP_LITTLE_ENDIAN);
    tep_set_local_bigendian(r_.tep_, TEP_LITTLE_ENDIAN);
    tep_set_long_size(r_.tep_, long_size_);
    tep_set_page_size(r_.tep_, static_cast<int>(*page_size));
    r_.plugins_ = tep_load_plugins(r_.tep_);

    auto parsed = r_.version_ == 6 ? parse_v6(in) : parse_v7(in);
    if (!parsed) return parsed;
    finish_clock();
    // libtraceevent learns where common_type lies from the first event parsed: have one.
    if (tep_get_events_count(r_.tep_) == 0 && !r_.unparsed_.empty())
      r_.load_event(r_.unparsed_.begin()->first);
    add_blktrace_event(r_.tep_);  // as trace-cmd does for every file it reads
    if (r_.tep_) tep_set_cpus(r_.tep_, r_.cpu_count_);
    return {};
  }

 private:
  tl::unexpected<Error> truncated(std::string_view what) const {
    return failf("{}: trace.dat is truncated or corrupt: {} is cut short", path_, what);
  }

  static std::string read_cstring(ByteReader& in) {
    std::string out;
    while (auto c = in.read<char>()) {
      if (*c == '\0') return out;
      out.push_back(*c);
      if (out.size() > 4096) break;
    }
    return out + "\x01";  // not terminated: never equal to a valid value
  }

  // ---- the metadata blocks (v6 in sequence, v7 one per section) ----

  Result<void> header_info(ByteReader& in) {
    auto page_tag = in.take(12);
    if (!page_tag || as_text(*page_tag) != std::string_view("header_page\0", 12))
      return truncated("header_page");
    auto page = sized_block<uint64_t>(in, "header_page");
    if (!page) return tl::unexpected(page.error());
    auto event_tag = in.take(13);
    if (!event_tag || as_text(*event_tag) != std::string_view("header_event\0", 13))
      return truncated("header_event");
    auto event = sized_block<uint64_t>(in, "header_event");
    if (!event) return tl::unexpected(event.error());
    r_.contents_.header_page = std::string(as_text(*page));
    r_.contents_.header_event = std::string(as_text(*event));
    tep_parse_header_page(r_.tep_, r_.contents_.header_page.data(), r_.contents_.header_page.size(),
                          long_size_);
    return {};
  }

  template <typename Size>
  Result<Bytes> sized_block(ByteReader& in, std::string_view what) {
    auto size = in.read<Size>();
    if (!size) return truncated(what);
    auto data = in.take(static_cast<size_t>(*size));
    if (!data || *size > in.remaining() + data->size()) return truncated(what);
    return *data;
  }

  Result<void> ftrace_formats(ByteReader& in) {
    auto count = in.read<uint32_t>();
    if (!count) return truncated("the ftrace event formats");
    for (uint32_t i = 0; i < *count; ++i) {
      auto format = sized_block<uint64_t>(in, "an ftrace event format");
      if (!format) return tl::unexpected(format.error());
      r_.contents_.ftrace_formats.emplace_back(as_text(*format));
      if (event_format_is_parseable(as_text(*format)))
        tep_parse_event(r_.tep_, reinterpret_cast<const char*>(format->data()), format->size(), "ftrace");
    }
    return {};
  }

  Result<void> event_formats(ByteReader& in) {
    auto systems = in.read<uint32_t>();
    if (!systems) return truncated("the event formats");
    for (uint32_t s = 0; s < *systems; ++s) {
      std::string system = read_cstring(in);
      if (!system.empty() && system.back() == '\x01') return truncated("an event system name");
      auto count = in.read<uint32_t>();
      if (!count) return truncated("the event formats of " + system);
      auto& entry = r_.contents_.event_formats.emplace_back(system, std::vector<std::string>{});
      for (uint32_t i = 0; i < *count; ++i) {
        auto format = sized_block<uint64_t>(in, "an event format of " + system);
        if (!format) return tl::unexpected(format.error());
        entry.second.emplace_back(as_text(*format));
        if (auto id = format_id(entry.second.back()))
          r_.unparsed_[*id] = {r_.contents_.event_formats.size() - 1, entry.second.size() - 1};
      }
    }
    return {};
  }

  Result<void> kallsyms(ByteReader& in) {
    auto text = sized_block<uint32_t>(in, "kallsyms");
    if (!text) return tl::unexpected(text.error());
    r_.kallsyms_ = as_text(*text);  // viewed, not copied; registered when first needed
    return {};
  }

  Result<void> printk_formats(ByteReader& in) {
    auto text = sized_block<uint32_t>(in, "printk formats");
    if (!text) return tl::unexpected(text.error());
    r_.contents_.printk_formats = std::string(as_text(*text));
    // libtraceevent copies what follows each line's first ':' from one byte further on (past the
    // end of a line that ends there), then looks two bytes before the format's end (before its
    // start for a format under 4 bytes): both found by fuzzing. It is given only lines with a
    // format of 4 bytes or more, as the kernel's quoted ones are ("ADDR : \"...\"").
    std::string well_formed;
    for (const std::string& line : split(r_.contents_.printk_formats, '\n')) {
      size_t colon = line.find(':');
      if (colon == std::string::npos || line.size() < colon + 2 + 4 || line.find('\0') != std::string::npos)
        continue;
      well_formed.append(line).push_back('\n');
    }
    if (!well_formed.empty()) tep_parse_printk_formats(r_.tep_, well_formed.c_str());
    return {};
  }

  Result<void> cmdlines(ByteReader& in) {
    auto text = sized_block<uint64_t>(in, "saved cmdlines");
    if (!text) return tl::unexpected(text.error());
    r_.contents_.saved_cmdlines = std::string(as_text(*text));
    tep_parse_saved_cmdlines(r_.tep_, r_.contents_.saved_cmdlines.c_str());
    return {};
  }

  // ---- options ----

  // One option; returns the next options section's offset for v7's DONE.
  void option(uint16_t id, Bytes data) {
    std::string_view text = as_text(data);
    switch (id) {
      case kOptionDate:
        r_.ts_offset_ +=
            std::strtoll(std::string(text.substr(0, text.find('\0'))).c_str(), nullptr, 0) * 1000;
        break;
      case kOptionOffset:
        r_.ts_offset_ += std::strtoll(std::string(text.substr(0, text.find('\0'))).c_str(), nullptr, 0);
        break;
      case kOptionCpuStat: {
        if (data.empty()) break;
        // trace-cmd shows each CPUSTAT with its NUL turned into a newline.
        std::string stat(text.substr(0, text.size() - 1));
        r_.cpu_stats_ += stat;
        r_.cpu_stats_ += '\n';
        if (stat.rfind("\nBuffer: ", 0) == 0) in_instance_stats_ = true;
        if (!in_instance_stats_ && stat.rfind("CPU: ", 0) == 0) {
          size_t newline = stat.find('\n');
          auto cpu = std::strtoul(stat.c_str() + 5, nullptr, 10);
          if (newline != std::string::npos && cpu < 4096) {
            auto& stats = r_.contents_.cpu_stats;
            if (stats.size() <= cpu) stats.resize(cpu + 1);
            stats[cpu] = stat.substr(newline + 1);
          }
        }
        break;
      }
      case kOptionBuffer:
        buffer_option(data);
        break;
      case kOptionBufferText:
        latency_buffer_ = true;
        break;
      case kOptionTraceClock:
        clock_ = bracketed_clock(text);
        r_.contents_.trace_clock = std::string(text.substr(0, text.find('\0')));
        use_trace_clock_ = true;
        break;
      case kOptionUname:
        r_.contents_.uname = std::string(text.substr(0, text.find('\0')));
        break;
      case kOptionCpuCount:
        if (data.size() >= 4) {
          cpus_option_ = static_cast<int>(sonde::load<uint32_t>(data.data()));
          r_.contents_.nr_cpus = cpus_option_;
        }
        break;
      case kOptionTsc2Nsec:
        if (data.size() >= 16) {
          r_.tsc_mult_ = sonde::load<uint32_t>(data.data());
          r_.tsc_shift_ = sonde::load<uint32_t>(data.data() + 4);
          r_.tsc_offset_ = sonde::load<uint64_t>(data.data() + 8);
        }
        break;
      case kOptionHeaderInfo:
      case kOptionFtraceEvents:
      case kOptionEventFormats:
      case kOptionKallsyms:
      case kOptionPrintk:
      case kOptionCmdlines:
        if (data.size() >= 8) sections_[id] = sonde::load<uint64_t>(data.data());
        break;
      default:
        break;
    }
  }

  void buffer_option(Bytes data) {
    BufferOption buffer;
    if (data.size() < 8) return;
    buffer.offset = sonde::load<uint64_t>(data.data());
    size_t position = 8;
    buffer.name = option_string(data, position);
    if (r_.version_ >= 7) {
      option_string(data, position);  // the buffer's clock: trace-cmd takes it from TRACECLOCK
      ByteReader rest(data.subspan(std::min(position, data.size())));
      auto page_size = rest.read<uint32_t>();
      auto count = rest.read<uint32_t>();
      if (!page_size || !count) return;
      for (uint32_t i = 0; i < *count; ++i) {
        auto id = rest.read<uint32_t>();
        auto offset = rest.read<uint64_t>();
        auto size = rest.read<uint64_t>();
        if (!id || !offset || !size) break;
        buffer.cpus.push_back({*id, *offset, *size});
      }
    }
    buffer_options_.push_back(std::move(buffer));
  }

  // v6 options: id, size, data until a zero id.
  Result<void> options_v6(ByteReader& in) {
    for (;;) {
      auto id = in.read<uint16_t>();
      if (!id) return truncated("the options");
      if (*id == kOptionDone) return {};
      auto data = sized_block<uint32_t>(in, "an option");
      if (!data) return tl::unexpected(data.error());
      option(*id, *data);
    }
  }

  // ---- version 6 ----

  Result<void> parse_v6(ByteReader& in) {
    if (auto r = header_info(in); !r) return r;
    if (auto r = ftrace_formats(in); !r) return r;
    if (auto r = event_formats(in); !r) return r;
    if (auto r = kallsyms(in); !r) return r;
    if (auto r = printk_formats(in); !r) return r;
    if (auto r = cmdlines(in); !r) return r;
    auto cpus = in.read<uint32_t>();
    if (!cpus) return truncated("the CPU count");
    if (*cpus > 65536) return failf("{}: corrupt trace.dat: {} CPUs", path_, *cpus);
    int header_cpus = static_cast<int>(*cpus);
    r_.contents_.nr_cpus = header_cpus;

    auto kind = in.take(10);
    if (!kind) return truncated("the data kind");
    if (as_text(*kind).substr(0, 7) == "options") {
      if (auto r = options_v6(in); !r) return r;
      kind = in.take(10);
      if (!kind) return truncated("the data kind");
    }
    // CPUCOUNT, when present, is the count trace-cmd uses for the CPU table.
    int table_cpus = cpus_option_ > 0 ? cpus_option_ : header_cpus;
    r_.cpu_count_ = std::max(header_cpus, table_cpus);
    if (as_text(*kind).substr(0, 7) == "latency")
      return failf("{}: latency-format trace.dat files are not supported", path_);
    if (as_text(*kind).substr(0, 9) != "flyrecord")
      return failf("{}: corrupt trace.dat: expected 'flyrecord' after the options", path_);

    auto top = flyrecord_v6(in, table_cpus, "");
    if (!top) return tl::unexpected(top.error());
    r_.buffers_.push_back(std::move(*top));
    for (const auto& option : buffer_options_) {
      if (option.name.empty()) continue;
      if (option.offset >= file_.size()) return truncated("buffer " + option.name);
      ByteReader at(file_.subspan(option.offset));
      auto head = at.take(10);
      if (!head) return truncated("buffer " + option.name);
      if (as_text(*head).substr(0, 7) == "options") {
        if (auto r = options_v6(at); !r) return r;
        head = at.take(10);
        if (!head) return truncated("buffer " + option.name);
      }
      if (as_text(*head).substr(0, 9) != "flyrecord")
        return failf("{}: corrupt trace.dat: buffer {} has no 'flyrecord'", path_, option.name);
      auto buffer = flyrecord_v6(at, table_cpus, option.name);
      if (!buffer) return tl::unexpected(buffer.error());
      r_.buffers_.push_back(std::move(*buffer));
    }
    return {};
  }

  Result<Buffer> flyrecord_v6(ByteReader& in, int cpus, const std::string& name) {
    Buffer buffer;
    buffer.name = name;
    for (int cpu = 0; cpu < cpus; ++cpu) {
      auto offset = in.read<uint64_t>();
      auto size = in.read<uint64_t>();
      if (!offset || !size) return truncated("the CPU data table");
      auto pages = cpu_pages(*offset, *size, cpu);
      if (!pages) return tl::unexpected(pages.error());
      buffer.cpus.push_back({cpu, *pages, *offset, *size});
    }
    if (use_trace_clock_) {
      // A copy of the trace_clock file follows; trace-cmd falls back to "local" if it is bad.
      auto clock = sized_block<uint64_t>(in, "the trace clock");
      if (clock) {
        std::string selected = bracketed_clock(as_text(*clock));
        if (!selected.empty()) clock_ = selected;
      }
    }
    return buffer;
  }

  Result<std::span<const uint8_t>> cpu_pages(uint64_t offset, uint64_t size, int cpu) {
    if (size == 0) return std::span<const uint8_t>{};
    if (offset > file_.size() || size > file_.size() - offset)
      return failf("{}: trace.dat is truncated: CPU {} data needs {} bytes but the file has {}", path_, cpu,
                   offset + size, file_.size());
    return file_.subspan(offset, size);
  }

  // ---- version 7 ----

  struct Section {
    uint16_t id = 0, flags = 0;
    Bytes data;  // uncompressed contents
  };

  Result<Bytes> decompress_block(ByteReader& in, std::string_view what) {
    auto compressed_size = in.read<uint32_t>();
    auto size = in.read<uint32_t>();
    if (!compressed_size || !size) return truncated(what);
    auto compressed = in.take(*compressed_size);
    if (!compressed) return truncated(what);
    auto& out = r_.decompressed_.emplace_back(*size);
    if (*size == 0) return Bytes{};
    size_t n = ZSTD_decompress(out.data(), out.size(), compressed->data(), compressed->size());
    if (ZSTD_isError(n))
      return failf("{}: corrupt trace.dat: cannot decompress {}: {}", path_, what, ZSTD_getErrorName(n));
    return Bytes(out.data(), n);
  }

  Result<Section> section_at(uint64_t offset, std::string_view what) {
    if (offset >= file_.size()) return truncated(what);
    ByteReader in(file_.subspan(offset));
    Section section;
    auto id = in.read<uint16_t>();
    auto flags = in.read<uint16_t>();
    auto description = in.read<uint32_t>();
    auto size = in.read<uint64_t>();
    if (!id || !flags || !description || !size) return truncated(what);
    section.id = *id;
    section.flags = *flags;
    if (*flags & kSectionCompressed) {
      if (!compressed_)
        return failf("{}: corrupt trace.dat: compressed {} in an uncompressed file", path_, what);
      auto data = decompress_block(in, what);
      if (!data) return tl::unexpected(data.error());
      section.data = *data;
    } else {
      auto data = in.take(static_cast<size_t>(std::min<uint64_t>(*size, in.remaining() + 1)));
      if (!data) return truncated(what);
      section.data = *data;
    }
    return section;
  }

  Result<void> parse_v7(ByteReader& in) {
    std::string compression = read_cstring(in);
    std::string compression_version = read_cstring(in);
    if (!compression_version.empty() && compression_version.back() == '\x01')
      return truncated("the compression header");
    if (compression != "none") {
      if (compression != "zstd")
        return failf("{}: trace.dat compression '{}' is not supported (sonde reads zstd and none)", path_,
                     compression);
      compressed_ = true;
    }
    auto options_start = in.read<uint64_t>();
    if (!options_start) return truncated("the options offset");

    // Options sections form a chain through each DONE option.
    uint64_t next = *options_start;
    for (int sections = 0; next != 0; ++sections) {
      if (sections > 1024) return failf("{}: corrupt trace.dat: options sections loop", path_);
      auto section = section_at(next, "an options section");
      if (!section) return tl::unexpected(section.error());
      if (section->id != kOptionDone)
        return failf("{}: corrupt trace.dat: no options section at {}", path_, next);
      next = 0;
      ByteReader options(section->data);
      for (;;) {
        auto id = options.read<uint16_t>();
        if (!id) break;
        auto data = sized_block<uint32_t>(options, "an option");
        if (!data) return tl::unexpected(data.error());
        if (*id == kOptionDone) {
          if (data->size() >= 8) next = sonde::load<uint64_t>(data->data());
          break;
        }
        option(*id, *data);
      }
    }

    using Reader = Result<void> (TraceDatParser::*)(ByteReader&);
    const std::pair<uint16_t, Reader> readers[] = {
        {kOptionHeaderInfo, &TraceDatParser::header_info},
        {kOptionFtraceEvents, &TraceDatParser::ftrace_formats},
        {kOptionEventFormats, &TraceDatParser::event_formats},
        {kOptionKallsyms, &TraceDatParser::kallsyms},
        {kOptionPrintk, &TraceDatParser::printk_formats},
        {kOptionCmdlines, &TraceDatParser::cmdlines},
    };
    for (const auto& [id, read] : readers) {
      auto found = sections_.find(id);
      if (found == sections_.end()) continue;
      auto section = section_at(found->second, "a metadata section");
      if (!section) return tl::unexpected(section.error());
      if (section->id != id)
        return failf("{}: corrupt trace.dat: section {} is not where its option says", path_, id);
      ByteReader data(section->data);
      if (auto r = (this->*read)(data); !r) return r;
    }
    if (!sections_.count(kOptionHeaderInfo))
      return failf("{}: corrupt trace.dat: no header page section", path_);

    Buffer top;
    int top_cpus = 0;
    std::vector<Buffer> instances;
    for (const auto& option : buffer_options_) {
      auto buffer = flyrecord_v7(option);
      if (!buffer) return tl::unexpected(buffer.error());
      if (option.name.empty()) {
        top = std::move(*buffer);
        for (const auto& cpu : top.cpus) top_cpus = std::max(top_cpus, cpu.cpu + 1);
      } else {
        instances.push_back(std::move(*buffer));
      }
    }
    if (buffer_options_.empty() && latency_buffer_)
      return failf("{}: latency-format trace.dat files are not supported", path_);
    r_.buffers_.push_back(std::move(top));
    for (auto& buffer : instances) r_.buffers_.push_back(std::move(buffer));
    r_.cpu_count_ = std::max(cpus_option_, top_cpus);
    if (r_.contents_.nr_cpus == 0) r_.contents_.nr_cpus = r_.cpu_count_;
    return {};
  }

  Result<Buffer> flyrecord_v7(const BufferOption& option) {
    Buffer buffer;
    buffer.name = option.name;
    // Only the section header matters here: the CPU data is found through the option.
    if (option.offset > file_.size() || file_.size() - option.offset < 16)
      return truncated("buffer '" + option.name + "'");
    uint16_t flags = sonde::load<uint16_t>(file_.data() + option.offset + 2);
    bool compressed = flags & kSectionCompressed;
    uint64_t page_size = r_.page_size_;
    uint64_t next_offset = page_size;
    if (compressed && !compressed_)
      return failf("{}: corrupt trace.dat: compressed buffer in an uncompressed file", path_);
    auto cpus = option.cpus;
    // trace-cmd places each CPU at the index of its id.
    std::stable_sort(cpus.begin(), cpus.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    for (const auto& cpu : cpus) {
      if (cpu.id > 65535) return failf("{}: corrupt trace.dat: CPU id {}", path_, cpu.id);
      int id = static_cast<int>(cpu.id);
      if (!compressed || cpu.size == 0) {
        auto pages = cpu_pages(cpu.offset, cpu.size, id);
        if (!pages) return tl::unexpected(pages.error());
        buffer.cpus.push_back({id, *pages, cpu.offset, cpu.size});
        continue;
      }
      auto pages = decompress_chunks(cpu.offset, cpu.size, id);
      if (!pages) return tl::unexpected(pages.error());
      buffer.cpus.push_back({id, *pages, next_offset, pages->size()});
      next_offset = (next_offset + pages->size() + page_size - 1) & ~(page_size - 1);
    }
    return buffer;
  }

  // Compressed CPU data: a chunk count, then (compressed size, size, bytes) per chunk.
  Result<Bytes> decompress_chunks(uint64_t offset, uint64_t size, int cpu) {
    // trace-cmd's recorded size leaves out the chunk count, so the chunks are read up to the
    // end of the file rather than within `size`.
    (void)size;
    if (offset > file_.size()) return truncated(fmt::format("CPU {} data", cpu));
    ByteReader in(file_.subspan(offset));
    auto count = in.read<uint32_t>();
    if (!count) return truncated(fmt::format("CPU {} data", cpu));
    uint64_t total = 0;
    std::vector<std::pair<Bytes, uint32_t>> chunks;
    for (uint32_t i = 0; i < *count; ++i) {
      auto compressed_size = in.read<uint32_t>();
      auto chunk_size = in.read<uint32_t>();
      if (!compressed_size || !chunk_size) return truncated(fmt::format("CPU {} data", cpu));
      auto bytes = in.take(*compressed_size);
      if (!bytes) return truncated(fmt::format("CPU {} data", cpu));
      chunks.emplace_back(*bytes, *chunk_size);
      total += *chunk_size;
    }
    if (total > (1ull << 36))
      return failf("{}: corrupt trace.dat: CPU {} data of {} bytes", path_, cpu, total);
    auto& out = r_.decompressed_.emplace_back(static_cast<size_t>(total));
    size_t used = 0;
    for (const auto& [bytes, chunk_size] : chunks) {
      size_t n = ZSTD_decompress(out.data() + used, chunk_size, bytes.data(), bytes.size());
      if (ZSTD_isError(n))
        return failf("{}: corrupt trace.dat: cannot decompress CPU {} data: {}", path_, cpu,
                     ZSTD_getErrorName(n));
      used += n;
    }
    return Bytes(out.data(), used);
  }

  void finish_clock() {
    if (r_.tsc_mult_) {
      r_.clock_in_ns_ = true;
    } else if (!clock_.empty()) {
      r_.clock_in_ns_ = clock_counts_nanoseconds(clock_);
    }
    if (r_.contents_.trace_clock.empty() && !clock_.empty()) r_.contents_.trace_clock = clock_;
  }

  TraceDatReader& r_;
  std::string path_;
  Bytes file_;
  int long_size_ = 8;
  bool compressed_ = false;
  bool use_trace_clock_ = false;
  bool latency_buffer_ = false;
  bool in_instance_stats_ = false;
  int cpus_option_ = 0;
  std::string clock_;
  std::vector<BufferOption> buffer_options_;
  std::map<uint16_t, uint64_t> sections_;
};

Result<void> parse_trace_dat(TraceDatReader& reader, const std::string& path) {
  return TraceDatParser(reader, path).run();
}

}  // namespace sonde::tracedat
