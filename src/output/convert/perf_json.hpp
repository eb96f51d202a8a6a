#pragma once
// perf data convert --to-json's layout (linux-perf-json-version 1), written from a replay: the
// header facts, then one object per sample in time order with its thread, CPU and the raw
// callchain, each address named by symbol and DSO as perf's thread__find_symbol names it.
// Tab-indented exactly as perf 6.1 writes it, so the two files compare byte for byte; strings
// that are not UTF-8 are escaped as \u00XX where perf writes broken escapes (see README).
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/report/hist_index.hpp"
#include "base/background_writer.hpp"
#include "base/output_stream.hpp"
#include "output/script/script_symbols.hpp"
#include "session/session.hpp"

namespace sonde::output {

// The JSON writers' text gathered before each write.
inline constexpr size_t kJsonFlushSize = 1 << 20;

// The header block's facts that do not come from the file's features.
struct PerfJsonFileFacts {
  int64_t captured_on = 0;  // the input's mtime, seconds since the epoch; < 0: not known
};

// A JSON string with perf's escapes, quotes included.
void append_json_string(std::string& out, std::string_view text);
// A JSON integer.
template <typename Number>
void append_json_number(std::string& out, Number value) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, static_cast<size_t>(end - digits));
}

class PerfJsonWriter : public session::SessionVisitor {
 public:
  PerfJsonWriter(session::Session& session, ScriptSymbols& symbols, OutputStream& out);

  // The opening brace, the version and the headers object, up to the samples array's "[".
  void begin(const PerfJsonFileFacts& facts);
  void on_sample(const session::SampleEvent& sample) override;
  // Closes the samples array and the document; the stream is flushed.
  Result<void> finish();

  uint64_t samples() const { return samples_; }
  uint64_t bytes() const { return bytes_put_ + text_.size(); }

 private:
  void append_header();
  void append_frame(uint64_t ip, const session::Location& loc, bool first);
  Result<void> drain();

  session::Session& session_;
  ScriptSymbols& symbols_;
  BackgroundWriter out_;
  std::string text_;  // pending output, handed to the writing thread in ~1 MB pieces
  uint64_t bytes_put_ = 0;
  Result<void> status_;
  PerfJsonFileFacts facts_;
  bool header_done_ = false;
  bool any_cpu_ = false;  // some event's sample_type has PERF_SAMPLE_CPU (perf's combined type)
  uint64_t samples_ = 0;
  // Each distinct callchain entry's text, made once: (dso, dso address, ip, kernel) -> its slice.
  analysis::KeyIndex<4> frame_ids_;
  std::vector<std::pair<uint32_t, uint32_t>> frames_;
  std::string frame_text_;
};

}  // namespace sonde::output
