#pragma once
// Folding stack samples into "comm;caller;...;leaf count" lines with stackcollapse-perf.pl's
// naming rules and options, so that the output is byte-identical to it for the same input.
// Frames and stacks are interned: each distinct (symbol, dso, ...) is named once, each distinct
// stack is one hash-map entry of frame ids.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/stacks/stack_sample.hpp"

namespace sonde::analysis {

struct CollapseOptions {
  bool include_pid = false;      // --pid: root frame "comm-PID"
  bool include_tid = false;      // --tid: root frame "comm-PID/TID"
  bool annotate_kernel = false;  // --kernel: "_[k]" on kernel frames
  bool annotate_jit = false;     // --jit: "_[j]" on /tmp/perf-PID.map frames
  bool include_addrs = false;    // --addrs: "[dso <addr>]" for unresolved frames
  bool show_inline = false;      // --inline: expand inline frames from DWARF (addr2line -i)
  bool show_context = false;     // --context: with --inline, add file:line to each name
};

// Expands a user-space frame into its inline chain, outermost first, joined with ';', as
// stackcollapse-perf.pl builds it from `addr2line -a PC -e DSO -i -f -s -C`. Returns "" or "??"
// when the address cannot be resolved (the frame is then named as usual).
class InlineExpander {
 public:
  virtual ~InlineExpander() = default;
  virtual std::string expand(std::string_view ip_text, std::string_view raw_symbol, std::string_view dso,
                             bool with_context) = 0;
};

// stackcollapse-perf.pl's event filter: only samples of one event are folded, by default the
// first event seen; the first sample of another event prints a note once (to `note`).
class EventFilter {
 public:
  explicit EventFilter(std::string wanted = {}) : wanted_(std::move(wanted)), defaulted_(wanted_.empty()) {}
  // Samples of any of these events, without notes.
  explicit EventFilter(std::vector<std::string> wanted) : wanted_(wanted.front()), also_(std::move(wanted)) {}
  // True when a sample of `event` is folded. Sets `note` to a line to print once, if any.
  bool accept(std::string_view event, std::string* note);

 private:
  std::string wanted_;
  bool defaulted_ = false;
  bool noted_ = false;
  std::vector<std::string> also_;
};

class StackCollapser {
 public:
  explicit StackCollapser(CollapseOptions options, InlineExpander* inline_expander = nullptr);
  ~StackCollapser();

  void add(const StackSample& sample);
  // Names one sample's stack without counting it: ids into names(), root first, the process
  // name included; valid until the next call.
  std::span<const uint32_t> fold(const StackSample& sample);
  const std::vector<std::string>& names() const { return names_; }
  // All folded lines, sorted bytewise as perl's sort does, each "stack count\n".
  std::string folded_text() const;
  // Visits each distinct stack (frame names root first, the process name included) and its
  // summed period, in no particular order.
  template <typename Visit>
  void for_each_stack(Visit&& visit) const {
    std::vector<std::string_view> names;
    for (const auto& [ids, count] : stacks_) {
      names.clear();
      for (uint32_t id : ids) names.push_back(names_[id]);
      visit(names, count);
    }
  }
  size_t stack_count() const { return stacks_.size(); }

 private:
  struct IdsHash {
    size_t operator()(const std::vector<uint32_t>& ids) const noexcept;
  };
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
  };
  using NameIndex = std::unordered_map<std::string, uint32_t, TextHash, std::equal_to<>>;

  uint32_t intern(std::string_view name);
  uint32_t process_name_id(const StackSample& sample);
  // Appends the ids of one frame's names (usually one; none for frames perl skips).
  void append_frame(const StackSample& sample, const StackFrame& frame, bool java);
  // The name id of a frame (kNoName: it adds none), found through its fields.
  uint32_t frame_name_id(const StackFrame& frame, bool java);
  std::string frame_name(const StackFrame& frame, bool java) const;
  std::string inline_chain(const StackFrame& frame);

  CollapseOptions options_;
  InlineExpander* inline_expander_;
  std::vector<std::string> names_;  // id -> name
  NameIndex name_ids_;
  NameIndex frame_cache_;                       // frame key -> name id (UINT32_MAX: the frame adds no name)
  std::vector<uint32_t> names_by_frame_id_[2];  // [java][StackFrame::id] -> name id
  NameIndex process_cache_;                     // comm/pid/tid key -> name id
  std::unordered_map<std::string, std::string, TextHash, std::equal_to<>> inline_cache_;
  std::unordered_map<std::vector<uint32_t>, uint64_t, IdsHash> stacks_;
  std::vector<uint32_t> scratch_;
  std::string key_;
};

}  // namespace sonde::analysis
