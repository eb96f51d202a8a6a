#pragma once
// perf report's histogram, built for speed: samples are folded into distinct stacks as they
// are read (a context id plus interned location ids, leaf first); entries (one per distinct
// sort-key value) and their self/children periods come from the distinct stacks afterwards,
// each stack counted once per distinct entry it contains, as perf's children mode does per
// sample. Entries keep the (stack, position) pairs their callchains grow from, for
// analysis/callchain.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/report/hist_index.hpp"
#include "analysis/report/report_frames.hpp"
#include "analysis/report/sort_keys.hpp"
#include "base/error.hpp"

namespace sonde::analysis {

// The sample-level part of a hist entry's key.
struct SampleContext {
  uint32_t comm = 0;  // ReportTables::comms index
  int32_t pid = -1;
  int32_t tid = -1;
  int32_t cpu = -1;
  uint32_t trace = kNoId;  // ReportTables::traces index (the trace key); kNoId: not a tracepoint
  uint64_t time = 0;       // the time key's bucket: the sample's time cut to --time-quantum
};

// What every event's histogram shares: locations, contexts, comm strings.
struct ReportTables {
  LocationTable locations;
  std::vector<SampleContext> contexts;
  KeyIndex<4> context_index;
  bool time_in_ns = false;  // --ns: the time key in nanoseconds
  std::vector<std::string> comms;
  std::unordered_map<std::string, uint32_t> comm_ids;
  std::vector<std::string> traces;  // tracepoint payloads as text, for the trace key
  std::unordered_map<std::string, uint32_t> trace_ids;
  // Per context: its thread's comm when the file ends. perf sizes the Command column and
  // prints "Pid:Command" with the thread's latest comm, not the one at sample time.
  std::vector<std::string> final_comms;

  uint32_t comm_id(const std::string& comm) {
    auto [it, inserted] = comm_ids.emplace(comm, static_cast<uint32_t>(comms.size()));
    if (inserted) comms.push_back(comm);
    return it->second;
  }
  uint32_t trace_id(const std::string& text) {
    auto [it, inserted] = trace_ids.emplace(text, static_cast<uint32_t>(traces.size()));
    if (inserted) traces.push_back(text);
    return it->second;
  }
  uint32_t context(uint32_t comm, int32_t pid, int32_t tid, int32_t cpu, uint32_t trace = kNoId,
                   uint64_t time = 0) {
    bool inserted;
    uint32_t id = context_index.intern(
        {uint64_t(comm) << 32 | uint32_t(pid), uint64_t(uint32_t(tid)) << 32 | uint32_t(cpu), trace, time},
        inserted);
    if (inserted) contexts.push_back({comm, pid, tid, cpu, trace, time});
    return id;
  }
};

enum class CallchainOrder { caller, callee };

struct HistOptions {
  std::vector<SortKey> keys;
  bool hide_unresolved = false;  // -U: samples whose address has no symbol are left out, totals too
  // --dsos/--symbols, as perf applies them: by the sampled address, a sample not wanted makes no
  // entry (not even its callers') but stays in the totals.
  std::function<bool(const FrameLocation&, const Function&)> sample_wanted;
  bool children = false;    // perf's --children: each sample also counts for its callers
  bool callchains = false;  // callchains are shown (members are kept for them)
  CallchainOrder order = CallchainOrder::callee;
  // The order --parent searches the chain in: perf's callchain order even where -g none shows no
  // chains (children mode: from the root).
  std::optional<CallchainOrder> parent_order;
  int max_stack = 127;
  std::string parent_pattern = "^sys_|^do_page_fault";
  // --ignore-callees: a sample below a function matching it counts for that function, its
  // callees cut from the chain (perf's walk in the callchain order stops at the first match).
  std::string ignore_callees;
  // -F/--fields: the output's order, figures and keys in turn; empty for perf's default (the
  // figures, then the keys).
  std::vector<ReportField> sort_list;
};

// A usage error, in perf's words, when `pattern` is not a POSIX extended regular expression.
Result<void> check_parent_pattern(const std::string& pattern);

struct HistEntry {
  uint32_t context = 0;     // of the first stack that made it (perf shows the first sample's)
  uint32_t location = 0;    // likewise: its DSO, symbol, level and source line are shown
  uint32_t parent = kNoId;  // function matched by --parent, or kNoId for [other]
  char level = '.';         // [.] [k]...: perf's, from the address that made the entry
  uint64_t address = 0;     // shown when unresolved: DSO-relative for the sampled address,
                            // the raw ip for a caller (perf keys callchain entries so)
  uint64_t self_period = 0, children_period = 0;
  uint64_t sys_period = 0, usr_period = 0;  // of self_period, sampled in the kernel or in user space
  uint64_t self_samples = 0, children_samples = 0;
  uint32_t first_stack = kNoId;
  uint32_t max_depth = 0;  // longest callchain appended to it (perf breaks children ties with it)
};

// A place a callchain of an entry grows from: `position` indexes Histogram::chain_functions(),
// and the chain runs `remaining` functions from there (toward the leaf in caller order, toward
// the root in callee order) in stack `stack`.
struct ChainStart {
  uint32_t position;
  uint32_t remaining;
  uint32_t stack;
};

class Histogram {
 public:
  // One sample: `context` from ReportTables::context, `locations` leaf first.
  // Returns the stack's id, for add_to_stack. `look_up` off: the caller sees few repeats, so the
  // stack is kept as one of its own without a lookup; a repeat becomes a second stack with the
  // same frames, which yields the same entries, periods and call graphs.
  uint32_t add(uint32_t context, std::span<const uint32_t> locations, uint64_t period, bool look_up = true) {
    scratch_.clear();
    scratch_.push_back(context);
    scratch_.insert(scratch_.end(), locations.begin(), locations.end());
    bool inserted = true;
    uint32_t id = look_up ? stacks_.intern(scratch_, inserted) : stacks_.append(scratch_);
    if (inserted) {
      periods_.push_back(0);
      counts_.push_back(0);
    }
    has_callchain_ |= locations.size() > 1;
    add_to_stack(id, period);
    return id;
  }
  // One more sample of a stack already added.
  void add_to_stack(uint32_t stack, uint64_t period) {
    periods_[stack] += period;
    counts_[stack] += 1;
    total_period_ += period;
    samples_ += 1;
  }

  // `samples` samples of one stack at once (top's aged stacks): `add` without the lookup's repeat.
  uint32_t add_samples(uint32_t context, std::span<const uint32_t> locations, uint64_t period,
                       uint32_t samples) {
    uint32_t id = add(context, locations, period);
    counts_[id] = counts_[id] - 1 + samples;
    samples_ = samples_ - 1 + samples;
    return id;
  }

  // A sample a filter (--comm, --pid, --tid) leaves out: it still counts in the totals.
  void add_filtered(uint64_t period) {
    total_period_ += period;
    filtered_period_ += period;
    samples_ += 1;
  }

  // Puts each unwound location's inline chain in its place in every stack (after resolve());
  // the sampled address stays the stack's leaf for its self entry, as perf keeps the sample's
  // own symbol. Stack ids do not change.
  void expand_unwound(const LocationTable& locations);

  // Builds the entries from the stacks (locations must be resolved), then orders them as
  // perf's output does. Building again (top's next screen) starts afresh.
  void build(ReportTables& tables, const HistOptions& options);

  uint64_t total_period() const { return total_period_; }
  uint64_t samples() const { return samples_; }
  bool has_callchain() const { return has_callchain_; }
  // The event's samples carry call chains, however short (perf draws a one-frame chain too).
  void note_callchain() { has_callchain_ = true; }
  size_t stack_count() const { return stacks_.size(); }

  const std::vector<HistEntry>& entries() const { return entries_; }
  // Entry indexes in perf's output order.
  const std::vector<uint32_t>& order() const { return order_; }

  uint64_t filtered_period() const { return filtered_period_; }
  // The stack's locations as added (leaf first, before --max-stack).
  std::span<const uint32_t> stack_frames(uint32_t stack) const { return stacks_.sequence(stack).subspan(1); }
  // The stack's chain (leaf first, after --max-stack), context, period and sample count.
  std::span<const uint32_t> chain(uint32_t stack) const;
  uint32_t stack_context(uint32_t stack) const { return stacks_.sequence(stack)[0]; }
  uint64_t stack_period(uint32_t stack) const { return periods_[stack]; }
  uint32_t stack_samples(uint32_t stack) const { return counts_[stack]; }
  // Where the entry's callchains start; the span may be reordered by the callchain builder.
  std::span<ChainStart> chain_starts(uint32_t entry) {
    return {starts_.data() + start_offsets_[entry], starts_.data() + start_offsets_[entry + 1]};
  }
  const HistOptions& options() const { return options_; }
  // The function ids of every stack's chain (after --max-stack, leaf first), back to back.
  const std::vector<uint32_t>& chain_functions() const { return chain_functions_; }

 private:
  // `caller`: the key of a callchain frame, where perf keys an unresolved address by its raw ip.
  uint32_t frame_key(const ReportTables& tables, uint32_t location, bool caller);
  uint32_t entry_for(uint32_t context_key, uint32_t frame_key, uint32_t context, uint32_t location,
                     uint32_t stack, char level, uint64_t address);
  void order_entries(const ReportTables& tables);

  SequenceIndex stacks_;
  std::vector<uint32_t> leaves_;          // after expand_unwound: each stack's sampled location
  std::vector<uint32_t> ignored_leaves_;  // --ignore-callees: the frame a stack counts for, or kNoId
  // After expand_unwound: how many locations each address of a stack became (its inline frames
  // and itself), leaf first, stack by stack from expansion_offsets_[s]; --max-stack counts addresses.
  std::vector<uint8_t> expansion_sizes_;
  std::vector<uint32_t> expansion_offsets_;
  std::vector<uint64_t> periods_;
  std::vector<uint32_t> counts_;
  std::vector<uint32_t> scratch_;
  uint64_t total_period_ = 0;
  uint64_t filtered_period_ = 0;                     // of total_period_, what add_filtered added
  uint64_t hidden_period_ = 0, hidden_samples_ = 0;  // what -U took out of the totals at build()
  uint64_t samples_ = 0;
  bool has_callchain_ = false;

  HistOptions options_;
  std::vector<uint32_t> stack_limits_;   // chain length after --max-stack, per stack
  std::vector<uint32_t> stack_offsets_;  // chain offset after --max-stack (caller order keeps the root end)
  KeyIndex<4> frame_keys_;
  std::unordered_map<std::string, uint64_t> dso_name_ids_;
  std::vector<uint32_t> frame_key_of_location_[2];
  KeyIndex<4> context_keys_;
  std::vector<uint32_t> context_key_of_context_;
  KeyIndex<1> entry_index_;
  std::vector<HistEntry> entries_;
  std::vector<uint32_t> order_;
  std::vector<ChainStart> starts_;
  std::vector<uint32_t> chain_functions_;
  std::vector<uint64_t> start_offsets_;
};

}  // namespace sonde::analysis
