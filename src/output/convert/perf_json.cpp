#include "output/convert/perf_json.hpp"

#include <fmt/format.h>
#include <linux/perf_event.h>

#include <ctime>

#include "format/perf_format.hpp"

namespace sonde::output {

namespace {

// The length of the UTF-8 sequence starting at `at`, 0 when it is not a valid one.
size_t utf8_sequence(std::string_view text, size_t at) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(at);
  size_t length = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 && lead < 0xe0 ? 2 : 0;
  if (length == 0 || at + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i)
    if ((byte(at + i) & 0xc0) != 0x80) return 0;
  // Overlong three- and four-byte forms, surrogates and code points past U+10FFFF.
  if (lead == 0xe0 && byte(at + 1) < 0xa0) return 0;
  if (lead == 0xed && byte(at + 1) >= 0xa0) return 0;
  if (lead == 0xf0 && byte(at + 1) < 0x90) return 0;
  if (lead == 0xf4 && byte(at + 1) >= 0x90) return 0;
  return length;
}

void append_newline(std::string& out, bool comma, int depth) {
  if (comma) out.push_back(',');
  out.push_back('\n');
  out.append(static_cast<size_t>(depth), '\t');
}

void append_key(std::string& out, bool comma, int depth, std::string_view key) {
  append_newline(out, comma, depth);
  append_json_string(out, key);
  out.append(": ");
}

void append_key_string(std::string& out, bool comma, int depth, std::string_view key,
                       std::string_view value) {
  append_key(out, comma, depth, key);
  append_json_string(out, value);
}

template <typename Number>
void append_key_number(std::string& out, bool comma, int depth, std::string_view key, Number value) {
  append_key(out, comma, depth, key);
  append_json_number(out, value);
}

std::string_view or_empty(const std::optional<std::string>& text) {
  return text ? std::string_view(*text) : std::string_view();
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  size_t plain = 0;  // start of the run of bytes that go out as they are
  for (size_t i = 0; i < text.size();) {
    auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte != '"' && byte != '\\' && byte < 0x80) {
      ++i;
      continue;
    }
    if (byte >= 0x80) {
      // perf hands signed chars to "\\u%04x" and writes "\\uffffffc3"; sonde keeps valid UTF-8
      // as it is and escapes a stray byte by its Latin-1 code point.
      if (size_t length = utf8_sequence(text, i); length > 0) {
        i += length;
        continue;
      }
    }
    out.append(text.substr(plain, i - plain));
    switch (byte) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\b':
        out.append("\\b");
        break;
      case '\f':
        out.append("\\f");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default:
        fmt::format_to(std::back_inserter(out), "\\u{:04x}", byte);
    }
    plain = ++i;
  }
  out.append(text.substr(plain));
  out.push_back('"');
}

PerfJsonWriter::PerfJsonWriter(session::Session& session, ScriptSymbols& symbols, OutputStream& out)
    : session_(session), symbols_(symbols), out_(out) {
  text_.reserve(kJsonFlushSize + 64 * 1024);
}

void PerfJsonWriter::begin(const PerfJsonFileFacts& facts) {
  facts_ = facts;
  // A pipe's features and events arrive as records ahead of its samples: its header waits.
  if (!session_.reader().is_pipe()) append_header();
}

void PerfJsonWriter::append_header() {
  header_done_ = true;
  const PerfJsonFileFacts& facts = facts_;
  const perfdata::PerfDataReader& reader = session_.reader();
  for (const auto& event : reader.attrs().events())
    any_cpu_ |= (event.attr.sample_type & PERF_SAMPLE_CPU) != 0;
  const perfdata::FeatureSet& f = reader.features();
  const perfdata::FileHeader& header = reader.header();
  text_.append("{\n\t\"linux-perf-json-version\": 1");
  text_.append(",\n\t\"headers\": {");
  append_key_number(text_, false, 2, "header-version", 1);
  if (facts.captured_on >= 0) {
    time_t when = facts.captured_on;
    std::tm utc{};
    gmtime_r(&when, &utc);
    char stamp[64];
    std::strftime(stamp, sizeof stamp, "%FT%TZ", &utc);
    append_key_string(text_, true, 2, "captured-on", stamp);
  }
  // perf's feat_offset: where the feature sections start, right after the data.
  uint64_t feat_offset = reader.is_pipe() ? 0 : header.data.offset + header.data.size;
  append_key_number(text_, true, 2, "data-offset", reader.is_pipe() ? 0 : header.data.offset);
  append_key_number(text_, true, 2, "data-size", reader.is_pipe() ? 0 : header.data.size);
  append_key_number(text_, true, 2, "feat-offset", feat_offset);
  append_key_string(text_, true, 2, "hostname", or_empty(f.hostname));
  append_key_string(text_, true, 2, "os-release", or_empty(f.os_release));
  append_key_string(text_, true, 2, "arch", or_empty(f.arch));
  if (f.cpu_desc) append_key_string(text_, true, 2, "cpu-desc", *f.cpu_desc);
  append_key_string(text_, true, 2, "cpuid", or_empty(f.cpuid));
  append_key_number(text_, true, 2, "nrcpus-online", f.nr_cpus ? f.nr_cpus->online : 0);
  append_key_number(text_, true, 2, "nrcpus-avail", f.nr_cpus ? f.nr_cpus->available : 0);
  if (f.clock_data) {
    append_key_number(text_, true, 2, "clockid", f.clock_data->clockid);
    append_key_number(text_, true, 2, "clock-time", f.clock_data->clockid_ns);
    append_key_number(text_, true, 2, "real-time", f.clock_data->tod_ns);
  }
  append_key_string(text_, true, 2, "perf-version", or_empty(f.version));
  append_key(text_, true, 2, "cmdline");
  text_.push_back('[');
  if (f.cmdline)
    for (size_t i = 0; i < f.cmdline->size(); ++i) {
      append_newline(text_, i != 0, 3);
      append_json_string(text_, (*f.cmdline)[i]);
    }
  text_.append("\n\t\t]\n\t}");
  text_.append(",\n\t\"samples\": [");
}

void PerfJsonWriter::append_frame(uint64_t ip, const session::Location& loc, bool first) {
  if (!first) text_.push_back(',');
  bool inserted;
  uint32_t id =
      frame_ids_.intern({reinterpret_cast<uintptr_t>(loc.dso), loc.dso_address, ip, loc.kernel()}, inserted);
  if (!inserted) {
    auto [offset, size] = frames_[id];
    text_.append(frame_text_, offset, size);
    return;
  }
  size_t start = text_.size();
  text_.append("\n\t\t\t\t{");
  append_key(text_, false, 5, "ip");
  fmt::format_to(std::back_inserter(text_), "\"{:#x}\"", ip);
  const ResolvedSymbol* symbol = loc.dso != nullptr ? &symbols_.resolve(*loc.dso, loc.dso_address) : nullptr;
  if (symbol != nullptr && symbol->found && !symbol->name.empty()) {
    append_key_string(text_, true, 5, "symbol", symbol->name);
    if (!loc.dso->short_name.empty()) append_key_string(text_, true, 5, "dso", loc.dso->short_name);
  }
  text_.append("\n\t\t\t\t}");
  frames_.emplace_back(static_cast<uint32_t>(frame_text_.size()),
                       static_cast<uint32_t>(text_.size() - start));
  frame_text_.append(text_, start, text_.size() - start);
}

void PerfJsonWriter::on_sample(const session::SampleEvent& sample) {
  if (!status_) return;
  if (!header_done_) append_header();
  const perfdata::Sample& s = sample.sample;
  if (samples_++ != 0) text_.push_back(',');
  // perf's sample fields are -1 where the sample_type leaves them out.
  text_.append("\n\t\t{\n\t\t\t\"timestamp\": ");
  append_json_number(text_, s.has(PERF_SAMPLE_TIME) ? static_cast<int64_t>(s.time) : -1);
  text_.append(",\n\t\t\t\"pid\": ");
  append_json_number(text_, sample.thread.pid);
  text_.append(",\n\t\t\t\"tid\": ");
  append_json_number(text_, sample.thread.tid);
  if (any_cpu_) {
    text_.append(",\n\t\t\t\"cpu\": ");
    append_json_number(text_, s.has(PERF_SAMPLE_CPU) ? static_cast<int32_t>(s.cpu) : -1);
  }
  text_.append(",\n\t\t\t\"comm\": ");
  append_json_string(text_, sample.thread.comm);
  text_.append(",\n\t\t\t\"callchain\": [");
  if (s.has(PERF_SAMPLE_CALLCHAIN)) {
    // The raw chain, context markers left out; the session placed its entries in the same order
    // (and stands the sampled ip in for a chain of markers only, which perf prints empty).
    size_t placed = 0;
    for (size_t i = 0; i < s.callchain.size(); ++i) {
      uint64_t ip = s.callchain[i];
      if (ip >= PERF_CONTEXT_MAX) continue;
      session::Location loc;
      loc.ip = ip;
      loc.dso_address = ip;
      if (placed < sample.callchain.size() && sample.callchain[placed].ip == ip)
        loc = sample.callchain[placed];
      append_frame(ip, loc, placed == 0);
      ++placed;
    }
  } else if (!sample.callchain.empty()) {
    append_frame(s.ip, sample.callchain.front(), true);
  }
  text_.append("\n\t\t\t]\n\t\t}");
  if (text_.size() >= kJsonFlushSize) status_ = drain();
}

Result<void> PerfJsonWriter::drain() {
  bytes_put_ += text_.size();
  auto put = out_.put(text_);
  text_.reserve(kJsonFlushSize + 64 * 1024);
  return put;
}

Result<void> PerfJsonWriter::finish() {
  if (!status_) return status_;
  if (!header_done_) append_header();
  text_.append("\n\t]\n}\n");
  if (auto drained = drain(); !drained) return drained;
  return out_.finish();
}

}  // namespace sonde::output
