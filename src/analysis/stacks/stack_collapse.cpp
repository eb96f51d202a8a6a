#include "analysis/stacks/stack_collapse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "analysis/stacks/stack_collapse_chars.hpp"
#include "base/strings.hpp"

namespace sonde::analysis {

namespace {

constexpr uint32_t kNoName = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kNotNamedYet = kNoName - 1;

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// /\/tmp\/perf-\d+\.map/ anywhere in the DSO: a JIT map (perf's name for JIT code).
bool is_jit_map(std::string_view dso) {
  for (size_t at = dso.find("/tmp/perf-"); at != std::string_view::npos;
       at = dso.find("/tmp/perf-", at + 1)) {
    size_t i = at + 10, digits = i;
    while (i < dso.size() && perl_digit(dso[i])) ++i;
    if (i > digits && dso.substr(i, 4) == ".map") return true;
  }
  return false;
}

// /(perf-\d+.map|kernel\.|\[[^\]]+\])/: DSOs whose frames --inline leaves alone.
bool inline_excluded(std::string_view dso) {
  for (size_t at = dso.find("perf-"); at != std::string_view::npos; at = dso.find("perf-", at + 1)) {
    size_t i = at + 5, digits = i;
    while (i < dso.size() && perl_digit(dso[i])) ++i;
    if (i > digits && i + 4 <= dso.size() && dso.substr(i + 1, 3) == "map") return true;
  }
  if (contains(dso, "kernel.")) return true;
  for (size_t open = dso.find('['); open != std::string_view::npos; open = dso.find('[', open + 1)) {
    size_t close = dso.find(']', open + 1);
    if (close != std::string_view::npos && close > open + 1) return true;
  }
  return false;
}

bool is_kernel_dso(std::string_view dso) {
  bool kernel = (!dso.empty() && dso.front() == '[') || dso.ends_with("vmlinux");
  return kernel && !contains(dso, "unknown");
}

// A Go method name such as "net/http.(*Client).Do": /\.\(.*\)\./.
bool looks_like_go_method(std::string_view name) {
  size_t open = name.find(".(");
  size_t close = name.rfind(").");
  return open != std::string_view::npos && close != std::string_view::npos && close >= open + 2;
}

// stackcollapse-perf.pl's generic tidying of one name.
void tidy_generic(std::string& name) {
  std::replace(name.begin(), name.end(), ';', ':');
  if (!looks_like_go_method(name)) {
    // Everything from the first '(' that does not open "(anonymous namespace)" is argument noise.
    for (size_t open = name.find('('); open != std::string::npos; open = name.find('(', open + 1)) {
      if (std::string_view(name).substr(open + 1).starts_with("anonymous namespace)")) continue;
      name.erase(open);
      break;
    }
  }
  std::erase_if(name, [](char c) { return c == '"' || c == '\''; });
}

// The text of a -F+srcline line as the script appends it: "[...]" parts removed, trimmed.
std::string srcline_suffix(std::string_view line) {
  std::string text;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '[') {
      size_t close = line.find(']', i + 1);
      if (close != std::string_view::npos) {
        i = close;
        continue;
      }
    }
    text += line[i];
  }
  size_t first = 0;
  while (first < text.size() && perl_space(text[first])) ++first;
  size_t last = text.size();
  while (last > first && perl_space(text[last - 1])) --last;
  return text.substr(first, last - first);
}

std::string ip_text_of(const StackFrame& frame) {
  return frame.ip_text.empty() ? fmt::format("{:x}", frame.ip) : std::string(frame.ip_text);
}

}  // namespace

bool EventFilter::accept(std::string_view event, std::string* note) {
  if (wanted_.empty()) {
    wanted_ = std::string(event);
    defaulted_ = true;
    return true;
  }
  if (event == wanted_) return true;
  for (const auto& other : also_)
    if (event == other) return true;
  if (defaulted_ && !noted_ && note) {
    *note = fmt::format("Filtering for events of type: {}", event);
    noted_ = true;
  }
  return false;
}

StackCollapser::StackCollapser(CollapseOptions options, InlineExpander* inline_expander)
    : options_(options), inline_expander_(inline_expander) {}

StackCollapser::~StackCollapser() = default;

size_t StackCollapser::IdsHash::operator()(const std::vector<uint32_t>& ids) const noexcept {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (uint32_t id : ids) hash = (hash ^ id) * 0x100000001b3ull;
  return static_cast<size_t>(hash ^ (hash >> 29));
}

uint32_t StackCollapser::intern(std::string_view name) {
  if (auto found = name_ids_.find(name); found != name_ids_.end()) return found->second;
  auto id = static_cast<uint32_t>(names_.size());
  names_.emplace_back(name);
  name_ids_.emplace(std::string(name), id);
  return id;
}

uint32_t StackCollapser::process_name_id(const StackSample& sample) {
  key_.assign(sample.comm);
  key_ += '\0';
  if (options_.include_pid || options_.include_tid) key_ += fmt::format("{}/{}", sample.pid, sample.tid);
  if (auto found = process_cache_.find(key_); found != process_cache_.end()) return found->second;
  std::string pid = sample.pid < 0 ? "?" : std::to_string(sample.pid);
  std::string name;
  if (options_.include_tid) {
    name = fmt::format("{}-{}/{}", sample.comm, pid, sample.tid);
  } else if (options_.include_pid) {
    name = fmt::format("{}-{}", sample.comm, pid);
  } else {
    name = std::string(sample.comm);
  }
  std::replace(name.begin(), name.end(), ' ', '_');
  uint32_t id = intern(name);
  process_cache_.emplace(key_, id);
  return id;
}

std::string StackCollapser::frame_name(const StackFrame& frame, bool java) const {
  std::string name(frame.symbol);
  if (name == "[unknown]") {
    std::string_view base = "unknown";
    if (frame.dso != "[unknown]") {  // the DSO's file name stands in for the function
      base = path_basename(frame.dso);
    }
    name = options_.include_addrs ? fmt::format("[{} <{}>]", base, ip_text_of(frame))
                                  : fmt::format("[{}]", base);
  }
  tidy_generic(name);
  if (java && name.find('/') != std::string::npos && !name.empty() && name.front() == 'L') name.erase(0, 1);
  if (frame.inlined) {
    if (name.find("_[i]") == std::string::npos) name += "_[i]";
  } else if (options_.annotate_kernel && is_kernel_dso(frame.dso)) {
    name += "_[k]";
  } else if (options_.annotate_jit && is_jit_map(frame.dso)) {
    if (name.find("_[j]") == std::string::npos) name += "_[j]";
  }
  bool unknown = frame.symbol == "[unknown]" && frame.dso == "[unknown]";
  if (frame.has_srcline && !unknown) {
    std::string suffix = srcline_suffix(frame.srcline);
    if (!suffix.empty()) name += ":" + suffix;
  }
  return name;
}

std::string StackCollapser::inline_chain(const StackFrame& frame) {
  std::string ip = ip_text_of(frame);
  key_.assign(ip);
  key_ += '\0';
  key_ += frame.dso;
  if (auto found = inline_cache_.find(key_); found != inline_cache_.end()) return found->second;
  std::string raw(frame.symbol);
  if (frame.has_symoff) raw += fmt::format("+0x{:x}", frame.symoff);
  std::string chain = inline_expander_->expand(ip, raw, frame.dso, options_.show_context);
  inline_cache_.emplace(key_, chain);
  return chain;
}

uint32_t StackCollapser::frame_name_id(const StackFrame& frame, bool java) {
  key_.assign(frame.symbol);
  key_ += '\0';
  key_ += frame.dso;
  key_ += '\0';
  key_ += static_cast<char>('0' + frame.inlined + 2 * java + 4 * frame.has_srcline);
  if (frame.has_srcline) key_ += frame.srcline;
  if (options_.include_addrs && frame.symbol == "[unknown]") {
    key_ += '\0';
    key_ += ip_text_of(frame);
  }
  if (auto found = frame_cache_.find(key_); found != frame_cache_.end()) return found->second;
  std::string key = key_;
  uint32_t id = intern(frame_name(frame, java));
  frame_cache_.emplace(std::move(key), id);
  return id;
}

void StackCollapser::append_frame(const StackSample&, const StackFrame& frame, bool java) {
  uint32_t id;
  if (frame.id != 0) {  // the producer's identity: named once, then found by index
    auto& by_id = names_by_frame_id_[java];
    if (frame.id >= by_id.size()) by_id.resize(frame.id + 1 + by_id.size() / 2, kNotNamedYet);
    if (by_id[frame.id] == kNotNamedYet) by_id[frame.id] = frame_name_id(frame, java);
    id = by_id[frame.id];
  } else {
    id = frame_name_id(frame, java);
  }
  if (id != kNoName) scratch_.push_back(id);
}

void StackCollapser::add(const StackSample& sample) {
  fold(sample);
  auto found = stacks_.find(scratch_);
  if (found != stacks_.end()) {
    found->second += sample.period;
  } else {
    stacks_.emplace(scratch_, sample.period);
  }
}

std::span<const uint32_t> StackCollapser::fold(const StackSample& sample) {
  scratch_.clear();
  scratch_.push_back(process_name_id(sample));
  bool java = sample.comm.starts_with("java");
  const auto& frames = sample.frames;
  // Root first: perf script prints the leaf first.
  for (size_t i = frames.size(); i-- > 0;) {
    const StackFrame& frame = frames[i];
    if (options_.show_inline && inline_expander_ && !frame.inlined && !inline_excluded(frame.dso)) {
      std::string chain = inline_chain(frame);
      if (!chain.empty() && chain != "??" && chain != "??:??:0") {
        scratch_.push_back(intern(chain));
        // The other names printed on the same line ("a->b") are replaced by the chain too.
        while (i > 0 && frames[i - 1].inlined) --i;
        continue;
      }
    }
    append_frame(sample, frame, java);
  }
  return scratch_;
}

std::string StackCollapser::folded_text() const {
  std::vector<std::string> lines;
  lines.reserve(stacks_.size());
  for (const auto& [ids, count] : stacks_) {
    std::string line;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i) line += ';';
      line += names_[ids[i]];
    }
    line += ' ';
    line += std::to_string(count);
    lines.push_back(std::move(line));
  }
  // perl sorts the stacks (the hash keys) alone; a key is a prefix of a longer one only when
  // followed by ';' there, and ' ' < ';', so sorting the whole lines by stack gives the same order.
  std::sort(lines.begin(), lines.end(), [](const std::string& a, const std::string& b) {
    return std::string_view(a).substr(0, a.rfind(' ')) < std::string_view(b).substr(0, b.rfind(' '));
  });
  std::string text;
  size_t size = 0;
  for (const auto& line : lines) size += line.size() + 1;
  text.reserve(size);
  for (const auto& line : lines) {
    text += line;
    text += '\n';
  }
  return text;
}

}  // namespace sonde::analysis
