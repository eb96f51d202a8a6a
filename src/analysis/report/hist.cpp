#include "analysis/report/hist.hpp"

#include <regex.h>

#include <algorithm>
#include <optional>

#include "analysis/report/entry_order.hpp"

namespace sonde::analysis {

Result<void> check_parent_pattern(const std::string& pattern) {
  regex_t compiled;
  int status = regcomp(&compiled, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
  if (status == 0) {
    regfree(&compiled);
    return {};
  }
  char reason[256];
  regerror(status, &compiled, reason, sizeof reason);
  return fail_usage(fmt::format("Invalid regex: {}: {}", pattern, reason));
}

std::span<const uint32_t> Histogram::chain(uint32_t stack) const {
  std::span<const uint32_t> sequence = stacks_.sequence(stack).subspan(1);
  if (stack_limits_.empty()) return sequence;
  return sequence.subspan(stack_offsets_[stack], stack_limits_[stack]);
}

void Histogram::expand_unwound(const LocationTable& locations) {
  if (!locations.has_expansions()) return;
  SequenceIndex expanded;
  leaves_.assign(stacks_.size(), kNoId);
  expansion_sizes_.clear();
  expansion_offsets_.assign(stacks_.size() + 1, 0);
  std::vector<uint32_t> sequence;
  for (uint32_t s = 0; s < stacks_.size(); ++s) {
    std::span<const uint32_t> original = stacks_.sequence(s);
    sequence.assign(1, original[0]);
    expansion_offsets_[s] = static_cast<uint32_t>(expansion_sizes_.size());
    for (size_t i = 1; i < original.size(); ++i) {
      const std::vector<uint32_t>* chain = locations.expansion(original[i]);
      if (chain)
        sequence.insert(sequence.end(), chain->begin(), chain->end());
      else
        sequence.push_back(original[i]);
      expansion_sizes_.push_back(static_cast<uint8_t>(std::min<size_t>(chain ? chain->size() : 1, 255)));
    }
    leaves_[s] = original.size() > 1 ? original[1] : kNoId;
    expanded.append(sequence);  // stack ids keep (two stacks may hold the same frames)
  }
  expansion_offsets_[stacks_.size()] = static_cast<uint32_t>(expansion_sizes_.size());
  stacks_ = std::move(expanded);
}

uint32_t Histogram::frame_key(const ReportTables& tables, uint32_t location, bool caller) {
  uint32_t& cached = frame_key_of_location_[caller][location];
  if (cached != kNoId) return cached;
  const FrameLocation& where = tables.locations.location(location);
  KeyIndex<4>::Key key{};
  const Function& function = tables.locations.function(where.function);
  bool raw = caller && !function.resolved;
  // perf compares DSOs by name here (two Dso objects of one file make one entry) and symbols
  // by their start within that name.
  uint64_t dso_name = 0;
  if (where.dso) {
    auto [it, inserted] = dso_name_ids_.emplace(where.dso->short_name, dso_name_ids_.size() + 1);
    dso_name = it->second;
  }
  for (SortKey k : options_.keys) {
    if (k == SortKey::dso) key[0] = dso_name;
    if (k == SortKey::sym) {
      if (raw)
        key[1] = where.ip;
      else if (function.inlined)
        key[1] = where.function;  // perf tells inline frames apart by name
      else if (function.resolved)
        key[1] = function.start;
      else
        key[1] = where.address;
      key[2] |= dso_name << 32;
      key[3] = raw ? 2 : function.inlined ? 3 : function.resolved ? 1 : 0;
    }
    if (k == SortKey::srcline) key[2] |= where.srcline + 1ull;
  }
  cached = frame_keys_.intern(key);
  return cached;
}

uint32_t Histogram::entry_for(uint32_t context_key, uint32_t frame_key, uint32_t context, uint32_t location,
                              uint32_t stack, char level, uint64_t address) {
  bool inserted;
  uint32_t id = entry_index_.intern({uint64_t(context_key) << 32 | frame_key}, inserted);
  if (inserted) {
    HistEntry entry;
    entry.context = context;
    entry.location = location;
    entry.first_stack = stack;
    entry.level = level;
    entry.address = address;
    entries_.push_back(entry);
  }
  return id;
}

void Histogram::build(ReportTables& tables, const HistOptions& options) {
  options_ = options;
  // A second build (top's next screen) starts from the stacks again.
  entries_.clear();
  entry_index_ = KeyIndex<1>();
  context_keys_ = KeyIndex<4>();
  frame_keys_ = KeyIndex<4>();
  dso_name_ids_.clear();
  total_period_ += hidden_period_;
  samples_ += hidden_samples_;
  hidden_period_ = hidden_samples_ = 0;
  const LocationTable& locations = tables.locations;
  ignored_leaves_.clear();
  frame_key_of_location_[0].assign(locations.location_count(), kNoId);
  frame_key_of_location_[1].assign(locations.location_count(), kNoId);

  bool want_parent =
      std::find(options.keys.begin(), options.keys.end(), SortKey::parent) != options.keys.end();
  std::vector<int8_t> parent_match;  // per function: -1 unknown, 0 no, 1 yes
  // POSIX extended regular expressions, as perf's regcomp.
  struct Regex {
    regex_t compiled{};
    bool ok = false;
    ~Regex() {
      if (ok) regfree(&compiled);
    }
  } parent_regex;
  if (want_parent) {
    parent_regex.ok =
        regcomp(&parent_regex.compiled, options.parent_pattern.c_str(), REG_EXTENDED | REG_NOSUB) == 0;
    parent_match.assign(locations.function_count(), -1);
  }

  Regex ignore_regex;
  std::vector<int8_t> ignore_match;  // per function, as parent_match
  if (!options.ignore_callees.empty()) {
    ignore_regex.ok =
        regcomp(&ignore_regex.compiled, options.ignore_callees.c_str(), REG_EXTENDED | REG_NOSUB) == 0;
    ignore_match.assign(locations.function_count(), -1);
  }
  auto matches = [&](const Regex& regex, std::vector<int8_t>& cache, uint32_t function) {
    const Function& f = locations.function(function);
    if (!f.resolved) return false;
    if (cache[function] < 0) cache[function] = regexec(&regex.compiled, f.name.c_str(), 0, nullptr, 0) == 0;
    return cache[function] == 1;
  };

  size_t stack_count = stacks_.size();
  stack_limits_.assign(stack_count, 0);
  stack_offsets_.assign(stack_count, 0);
  // perf's unwinder (DWARF) stops after --max-stack addresses from the leaf whatever the order,
  // and an address's inline frames come with it uncounted; a frame-pointer chain in caller order
  // keeps its root end.
  const uint32_t max_frames = static_cast<uint32_t>(std::max(options.max_stack, 1));
  for (uint32_t s = 0; s < stack_count; ++s) {
    std::span<const uint32_t> frames = stacks_.sequence(s).subspan(1);
    uint32_t length = static_cast<uint32_t>(frames.size());
    bool unwound = std::any_of(frames.begin(), frames.end(),
                               [&](uint32_t location) { return locations.location(location).unwound; });
    uint32_t limit = std::min(length, max_frames);
    if (unwound && !expansion_offsets_.empty() && length > max_frames) {
      limit = 0;
      uint32_t end = std::min(expansion_offsets_[s + 1], expansion_offsets_[s] + max_frames);
      for (uint32_t a = expansion_offsets_[s]; a < end; ++a) limit += expansion_sizes_[a];
      limit = std::min(limit, length);
    }
    stack_limits_[s] = limit;
    stack_offsets_[s] = options.order == CallchainOrder::caller && !unwound ? length - limit : 0;
    if (!ignore_regex.ok) continue;
    // --ignore-callees: perf walks the chain in the callchain order and at each match forgets
    // what it walked (the callees from the leaf; the callers from the root), taking the matching
    // frame as the sample's own: the last match walked decides.
    std::span<const uint32_t> walked = frames.subspan(stack_offsets_[s], limit);
    const bool from_root = options.order == CallchainOrder::caller;
    std::optional<uint32_t> last;
    for (uint32_t k = 0; k < walked.size(); ++k) {
      uint32_t i = from_root ? static_cast<uint32_t>(walked.size()) - 1 - k : k;
      if (matches(ignore_regex, ignore_match, locations.location(walked[i]).function)) last = i;
    }
    if (!last) continue;
    if (from_root) {
      stack_limits_[s] = *last + 1;
    } else {
      stack_offsets_[s] += *last;
      stack_limits_[s] -= *last;
    }
    if (ignored_leaves_.empty()) ignored_leaves_.assign(stack_count, kNoId);
    ignored_leaves_[s] = walked[*last];
  }

  // Context part of the key, per stack.
  std::vector<uint32_t> context_key_of_stack(stack_count);
  std::vector<uint32_t> parent_of_stack(stack_count, kNoId);
  for (uint32_t s = 0; s < stack_count; ++s) {
    const SampleContext& context = tables.contexts[stack_context(s)];
    uint32_t parent = kNoId;
    if (want_parent) {
      std::span<const uint32_t> locs = chain(s);
      CallchainOrder parent_order = options.parent_order.value_or(options.order);
      for (size_t i = 0; i < locs.size(); ++i) {
        size_t index = parent_order == CallchainOrder::callee ? i : locs.size() - 1 - i;
        uint32_t function = locations.location(locs[index]).function;
        if (parent_regex.ok && matches(parent_regex, parent_match, function)) {
          parent = function;
          break;
        }
      }
    }
    parent_of_stack[s] = parent;
    KeyIndex<4>::Key key{};
    for (SortKey k : options.keys) {
      if (k == SortKey::comm) key[0] |= context.comm;
      if (k == SortKey::trace) key[0] |= uint64_t(context.trace) << 32;
      if (k == SortKey::pid) key[1] |= uint64_t(uint32_t(context.tid));
      if (k == SortKey::cpu) key[1] |= uint64_t(uint32_t(context.cpu)) << 32;
      if (k == SortKey::parent) key[2] = parent + 1ull;
      if (k == SortKey::time) key[3] = context.time;
    }
    context_key_of_stack[s] = context_keys_.intern(key);
  }

  // Entries. `stamp` marks the entries a stack has already counted (children mode counts a
  // stack once per distinct entry, as perf's he_cache does per sample).
  std::vector<uint32_t> stamp;
  // Per location, the caller entry it last led to and under which context key: stacks mostly
  // share their context key, so the entry index is asked about once per location, not per frame.
  struct CallerEntry {
    uint32_t context_key = kNoId;
    uint32_t entry = kNoId;
  };
  std::vector<CallerEntry> caller_entry(options.children ? locations.location_count() : 0);
  bool caller = options.order == CallchainOrder::caller;
  std::vector<uint32_t> entry_at;  // per chain position of every stack, kNoId for duplicates
  std::vector<uint64_t> entry_at_offset(stack_count + 1, 0);
  bool keep_starts = options.callchains;
  std::vector<bool> left_out(options.hide_unresolved || options.sample_wanted ? stack_count : 0, false);
  for (uint32_t s = 0; s < stack_count; ++s) {
    std::span<const uint32_t> locs = chain(s);
    uint32_t length = static_cast<uint32_t>(locs.size());
    uint32_t context = stack_context(s);
    uint32_t context_key = context_key_of_stack[s];
    uint64_t period = periods_[s];
    uint32_t count = counts_[s];
    entry_at_offset[s] = entry_at.size();

    // The sampled address itself, even when --max-stack cut it from the chain (as perf's al).
    uint32_t leaf = leaves_.empty() ? stacks_.sequence(s)[1] : leaves_[s];
    if (!ignored_leaves_.empty() && ignored_leaves_[s] != kNoId) leaf = ignored_leaves_[s];
    if (options.hide_unresolved && !locations.function(locations.location(leaf).function).resolved) {
      // perf's -U drops such a sample before it is counted anywhere.
      left_out[s] = true;
      total_period_ -= period;
      samples_ -= count;
      hidden_period_ += period;
      hidden_samples_ += count;
      continue;
    }
    if (options.sample_wanted &&
        !options.sample_wanted(locations.location(leaf),
                               locations.function(locations.location(leaf).function))) {
      left_out[s] = true;
      continue;
    }
    char level = locations.location(leaf).level;
    uint32_t self = entry_for(context_key, frame_key(tables, leaf, false), context, leaf, s, level,
                              locations.location(leaf).address);
    if (stamp.size() < entries_.size()) stamp.resize(entries_.size() * 2, kNoId);
    HistEntry* entry = &entries_[self];
    entry->parent = parent_of_stack[s];
    entry->self_period += period;
    entry->self_samples += count;
    // --show-cpu-utilization: where the sample was taken, as its leaf's level says.
    if (level == 'k') entry->sys_period += period;
    if (level == '.') entry->usr_period += period;
    entry->children_period += period;
    entry->children_samples += count;
    entry->max_depth = std::max(entry->max_depth, length);
    stamp[self] = s;
    if (keep_starts) entry_at.push_back(self);  // the self entry's chain: the whole stack
    if (!options.children) continue;

    // perf reuses one addr_location along the chain: an address outside every map keeps the
    // level of the frame before it (or the sample's). Only a new entry needs it.
    auto level_at = [&](uint32_t i) {
      for (uint32_t j = i + 1; j-- > 0;) {
        const FrameLocation& where = locations.location(locs[caller ? length - 1 - j : j]);
        if (where.dso) return where.dso->is_kernel() ? 'k' : '.';
      }
      return level;
    };
    for (uint32_t i = 0; i < length; ++i) {
      uint32_t location = locs[caller ? length - 1 - i : i];
      CallerEntry& cached = caller_entry[location];
      if (cached.context_key != context_key) {
        uint32_t key = frame_key(tables, location, true);
        size_t before = entries_.size();
        uint32_t found =
            entry_for(context_key, key, context, location, s, '.', locations.location(location).ip);
        if (entries_.size() != before) entries_[found].level = level_at(i);
        cached = {context_key, found};
      }
      uint32_t id = cached.entry;
      if (stamp.size() < entries_.size()) stamp.resize(entries_.size() * 2, kNoId);
      if (stamp[id] == s) {
        if (keep_starts) entry_at.push_back(kNoId);
        continue;
      }
      stamp[id] = s;
      HistEntry& e = entries_[id];
      e.parent = parent_of_stack[s];
      e.children_period += period;
      e.children_samples += count;
      e.max_depth = std::max(e.max_depth, length - i);
      if (keep_starts) entry_at.push_back(id);
    }
  }
  entry_at_offset[stack_count] = entry_at.size();

  // Group the chain starts by entry (counting sort): entry -> (position, remaining, stack).
  if (keep_starts) {
    std::vector<uint32_t> chain_begin(stack_count + 1, 0);
    for (uint32_t s = 0; s < stack_count; ++s) chain_begin[s + 1] = chain_begin[s] + stack_limits_[s];
    chain_functions_.resize(chain_begin[stack_count]);
    for (uint32_t s = 0; s < stack_count; ++s) {
      std::span<const uint32_t> locs = chain(s);
      for (size_t i = 0; i < locs.size(); ++i)
        chain_functions_[chain_begin[s] + i] = locations.location(locs[i]).function;
    }
    start_offsets_.assign(entries_.size() + 1, 0);
    for (uint32_t id : entry_at)
      if (id != kNoId) ++start_offsets_[id + 1];
    for (size_t e = 0; e < entries_.size(); ++e) start_offsets_[e + 1] += start_offsets_[e];
    std::vector<uint64_t> fill(start_offsets_.begin(), start_offsets_.end() - 1);
    starts_.resize(start_offsets_.back());
    auto start_at = [&](uint32_t s, uint32_t index, uint32_t length) {
      return ChainStart{chain_begin[s] + index, caller ? index + 1 : length - index, s};
    };
    for (uint32_t s = 0; s < stack_count; ++s) {
      if (!left_out.empty() && left_out[s]) continue;
      uint32_t length = stack_limits_[s];
      uint64_t at = entry_at_offset[s];
      // First slot: the self entry with the whole chain.
      starts_[fill[entry_at[at]]++] = start_at(s, caller ? length - 1 : 0, length);
      if (!options.children) continue;
      for (uint32_t i = 0; i < length; ++i) {
        uint32_t id = entry_at[at + 1 + i];
        if (id == kNoId) continue;
        uint32_t index = caller ? length - 1 - i : i;
        starts_[fill[id]++] = start_at(s, index, length);
      }
    }
    std::vector<uint32_t>().swap(entry_at);
  }
  order_entries(tables);
}

void Histogram::order_entries(const ReportTables& tables) {
  EntryOrder order(tables, options_);
  // perf's output sort: > 0 puts `a` first.
  bool children = options_.children;
  bool depth_rule = children && options_.callchains;
  // perf's children figure: the periods, then callers above callees of one thread.
  auto children_compare = [&](const HistEntry& a, const HistEntry& b) {
    int c = compare_figures(a.children_period, b.children_period);
    if (c || !depth_rule ||
        tables.contexts[stack_context(a.first_stack)].tid !=
            tables.contexts[stack_context(b.first_stack)].tid)
      return c;
    int64_t d = int64_t(b.max_depth) - int64_t(a.max_depth);
    if (options_.order == CallchainOrder::caller) d = -d;
    return d > 0 ? 1 : d < 0 ? -1 : 0;
  };
  auto output_compare = [&](const HistEntry& a, const HistEntry& b) {
    int c = 0;
    if (children) {
      c = children_compare(a, b);
      if (c) return c;
    }
    c = compare_figures(a.self_period, b.self_period);
    if (c) return c;
    return order.keys_compare(a, b);
  };
  // -F's order: its figures and keys as listed.
  auto listed_compare = [&](const HistEntry& a, const HistEntry& b) {
    for (const ReportField& field : options_.sort_list) {
      int c = 0;
      if (!field.is_figure) {
        c = order.key_compare(field.key, a, b);
      } else {
        switch (field.figure) {
          case ReportFigure::overhead:
          case ReportFigure::period:
            c = compare_figures(a.self_period, b.self_period);
            break;
          case ReportFigure::overhead_children:
            c = children ? children_compare(a, b) : 0;
            break;
          case ReportFigure::overhead_sys:
            c = compare_figures(a.sys_period, b.sys_period);
            break;
          case ReportFigure::overhead_us:
            c = compare_figures(a.usr_period, b.usr_period);
            break;
          case ReportFigure::sample:
            c = compare_figures(a.self_samples, b.self_samples);
            break;
        }
      }
      if (c) return c;
    }
    return 0;
  };
  order_ = perf_output_order(
      entries_.size(), [&](uint32_t a, uint32_t b) { return order.tree_compare(entries_[a], entries_[b]); },
      [&](uint32_t a, uint32_t b) {
        const HistEntry& ea = entries_[a];
        const HistEntry& eb = entries_[b];
        return (options_.sort_list.empty() ? output_compare(ea, eb) : listed_compare(ea, eb)) > 0;
      });
}

}  // namespace sonde::analysis
