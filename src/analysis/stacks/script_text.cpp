#include "analysis/stacks/script_text.hpp"

#include <optional>
#include <string>
#include <vector>

#include "analysis/stacks/stack_collapse_chars.hpp"

namespace sonde::analysis {

namespace {

// Saturating decimal of a digit run (perl would keep such a number as a string).
uint64_t decimal(std::string_view digits) {
  uint64_t value = 0;
  for (char c : digits) {
    uint64_t next = value * 10 + static_cast<uint64_t>(c - '0');
    if (next / 10 != value) return UINT64_MAX;
    value = next;
  }
  return value;
}

uint64_t hex_value(std::string_view text) {
  uint64_t value = 0;
  for (char c : text) {
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0) return 0;
    value = value * 16 + static_cast<uint64_t>(digit);
  }
  return value;
}

struct Header {
  std::string_view comm;
  std::string_view pid;  // empty when absent
  std::string_view tid;
};

// /^(\S.+?)\s+(\d+)\/*(\d+)*\s+/: the shortest comm (two characters or more) followed by
// whitespace, a number, optional slashes and a second number, then whitespace.
std::optional<Header> match_header(std::string_view line) {
  if (line.empty() || perl_space(line[0])) return std::nullopt;
  size_t n = line.size();
  for (size_t end = 2; end < n; ++end) {
    if (!perl_space(line[end])) continue;
    size_t i = end;
    while (i < n && perl_space(line[i])) ++i;
    if (i >= n || !perl_digit(line[i])) continue;
    size_t first = i;
    while (i < n && perl_digit(line[i])) ++i;
    std::string_view number1 = line.substr(first, i - first);
    if (i < n && perl_space(line[i])) return Header{line.substr(0, end), number1, {}};
    size_t slashes = i;
    while (i < n && line[i] == '/') ++i;
    bool had_slash = i > slashes;
    size_t second = i;
    while (i < n && perl_digit(line[i])) ++i;
    if (i < n && perl_space(line[i])) {
      if (i > second) return Header{line.substr(0, end), number1, line.substr(second, i - second)};
      if (had_slash) return Header{line.substr(0, end), number1, {}};
    }
  }
  return std::nullopt;
}

struct EventPart {
  std::string_view period;  // empty when absent
  std::string_view event;
};

// /:\s*(\d+)*\s+(\S+):\s*$/: "...: [period] event:" at the end of the header line.
std::optional<EventPart> match_event(std::string_view line) {
  size_t end = line.size();
  while (end > 0 && perl_space(line[end - 1])) --end;
  if (end == 0 || line[end - 1] != ':') return std::nullopt;
  size_t word = end - 1;
  while (word > 0 && !perl_space(line[word - 1])) --word;
  if (word == end - 1 || word == 0) return std::nullopt;
  size_t i = word;
  while (i > 0 && perl_space(line[i - 1])) --i;
  size_t digits_end = i;
  while (i > 0 && perl_digit(line[i - 1])) --i;
  size_t digits_start = i;
  while (i > 0 && perl_space(line[i - 1])) --i;
  if (i == 0 || line[i - 1] != ':') return std::nullopt;
  return EventPart{line.substr(digits_start, digits_end - digits_start), line.substr(word, end - 1 - word)};
}

struct FrameLine {
  std::string_view ip;
  std::string_view raw_symbol;
  std::string_view dso;
};

// /^\s*(\w+)\s*(.+) \((.*)\)/ with perl's backtracking: the dso is between the last " (" that a
// ')' follows and the last ')'; the symbol is what lies between the address and that " (".
std::optional<FrameLine> match_frame(std::string_view line) {
  size_t n = line.size();
  size_t start = 0;
  while (start < n && perl_space(line[start])) ++start;
  size_t word_end = start;
  while (word_end < n && perl_word(line[word_end])) ++word_end;
  if (word_end == start) return std::nullopt;
  size_t close = line.rfind(')');
  if (close == std::string_view::npos || close < 2) return std::nullopt;
  size_t open = std::string_view::npos;
  for (size_t j = close - 1; j-- > 0;) {
    if (line[j] == ' ' && line[j + 1] == '(') {
      open = j;
      break;
    }
  }
  if (open == std::string_view::npos) return std::nullopt;
  size_t symbol_start = word_end;
  while (symbol_start < n && perl_space(line[symbol_start])) ++symbol_start;
  if (symbol_start + 1 > open) symbol_start = open - 1;
  if (open == 0 || symbol_start < start + 1) return std::nullopt;
  size_t ip_end = std::min(word_end, symbol_start);
  return FrameLine{line.substr(start, ip_end - start), line.substr(symbol_start, open - symbol_start),
                   line.substr(open + 2, close - open - 2)};
}

// Strips a trailing /\+0x[\da-f]+$/ offset.
std::string_view strip_offset(std::string_view raw, uint64_t* offset, bool* has_offset) {
  size_t plus = raw.rfind("+0x");
  if (plus == std::string_view::npos || plus + 3 == raw.size()) return raw;
  std::string_view hex = raw.substr(plus + 3);
  for (char c : hex)
    if (!perl_digit(c) && !(c >= 'a' && c <= 'f')) return raw;
  *offset = hex_value(hex);
  *has_offset = true;
  return raw.substr(0, plus);
}

class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : text_(text) {}
  // The next line without its '\n'; nullopt at the end.
  std::optional<std::string_view> next() {
    if (at_ >= text_.size()) return std::nullopt;
    size_t end = text_.find('\n', at_);
    if (end == std::string_view::npos) end = text_.size();
    std::string_view line = text_.substr(at_, end - at_);
    at_ = end + 1;
    return line;
  }

 private:
  std::string_view text_;
  size_t at_ = 0;
};

}  // namespace

ScriptTextStats parse_script_text(std::string_view text, const ScriptTextOptions& options,
                                  EventFilter& filter, const StackSampleSink& sink,
                                  Diagnostics& diagnostics) {
  ScriptTextStats stats;
  LineCursor cursor(text);
  std::vector<StackFrame> frames;  // leaf first
  std::vector<StackFrame> parts;   // the frames of one line, in printed order
  StackSample sample;
  bool in_sample = false;  // perl's $pname is set
  std::string filter_note;
  size_t line_number = 0;
  while (auto next = cursor.next()) {
    std::string_view line = *next;
    ++line_number;
    if (!line.empty() && line.front() == '#') continue;
    if (line.empty()) {
      if (!in_sample) continue;
      sample.frames = frames;
      sink(sample);
      ++stats.samples;
      frames.clear();
      in_sample = false;
      continue;
    }
    if (auto header = match_header(line)) {
      std::string_view pid = header->pid, tid = header->tid;
      if (tid.empty() || tid == "0") {  // perl: a missing or "0" second number means tid only
        tid = pid;
        pid = {};
      }
      uint64_t period = 1;
      std::string_view event;
      if (auto event_part = match_event(line)) {
        event = event_part->event;
        filter_note.clear();
        bool accepted = filter.accept(event, &filter_note);
        if (!filter_note.empty()) diagnostics.note(filter_note);
        if (!accepted) continue;
        if (!event_part->period.empty() && event_part->period != "0") period = decimal(event_part->period);
      }
      sample.comm = header->comm;
      sample.pid = pid.empty() ? -1 : static_cast<int64_t>(decimal(pid));
      sample.tid = static_cast<int64_t>(decimal(tid));
      sample.event = event;
      sample.period = period;
      in_sample = true;
      continue;
    }
    if (auto frame_line = match_frame(line)) {
      if (!in_sample) continue;
      StackFrame frame;
      frame.ip_text = frame_line->ip;
      frame.ip = hex_value(frame_line->ip);
      frame.dso = frame_line->dso;
      std::string_view raw = strip_offset(frame_line->raw_symbol, &frame.symoff, &frame.has_symoff);
      if (!raw.empty() && raw.front() == '(') continue;  // a process name, not a frame
      // perl's split /->/: every part, without the empty ones at the end.
      parts.clear();
      size_t from = 0;
      while (true) {
        size_t arrow = raw.find("->", from);
        frame.symbol =
            raw.substr(from, arrow == std::string_view::npos ? std::string_view::npos : arrow - from);
        frame.inlined = !parts.empty();
        parts.push_back(frame);
        if (arrow == std::string_view::npos) break;
        from = arrow + 2;
      }
      while (!parts.empty() && parts.back().symbol.empty()) parts.pop_back();
      for (auto& part : parts) {
        bool unknown = part.symbol == "[unknown]" && part.dso == "[unknown]";
        if (options.srcline && !unknown) {
          part.has_srcline = true;
          if (auto source = cursor.next()) {
            part.srcline = *source;
            ++line_number;
          }
        }
      }
      for (size_t i = parts.size(); i-- > 0;) frames.push_back(parts[i]);
      continue;
    }
    ++stats.unrecognized_lines;
    diagnostics.notef("unrecognized line {}: {}", line_number, line);
  }
  return stats;
}

bool looks_like_script_text(std::string_view text) {
  LineCursor cursor(text);
  while (auto line = cursor.next()) {
    if (line->empty() || line->front() == '#') continue;
    if (!match_header(*line)) return false;
    auto second = cursor.next();
    // A header's next line is a frame, a blank line or another header; a folded line never is.
    return !second || second->empty() || match_frame(*second) || match_header(*second);
  }
  return false;
}

}  // namespace sonde::analysis
