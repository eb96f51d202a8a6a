#include "analysis/flame/flame_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

namespace sonde::analysis {

namespace {

size_t slot_of(uint64_t key) {  // splitmix64's finalizer: parent and name ids are dense
  key ^= key >> 30;
  key *= 0xbf58476d1ce4e5b9ull;
  key ^= key >> 27;
  key *= 0x94d049bb133111ebull;
  return static_cast<size_t>(key ^ (key >> 31));
}

}  // namespace

void FlameTree::grow_child_slots() {
  std::vector<ChildSlot> old(child_slots_.size() * 2);
  old.swap(child_slots_);
  size_t mask = child_slots_.size() - 1;
  for (const auto& slot : old) {
    if (slot.key == UINT64_MAX) continue;
    size_t at = slot_of(slot.key) & mask;
    while (child_slots_[at].key != UINT64_MAX) at = (at + 1) & mask;
    child_slots_[at] = slot;
  }
}

FlameTree::FlameTree(FlameTreeOptions options) : options_(options) {
  intern("");
  nodes_.push_back(FlameNode{});
  child_slots_.resize(1 << 10);
}

uint32_t FlameTree::intern(std::string_view name) {
  if (auto found = name_ids_.find(name); found != name_ids_.end()) return found->second;
  auto id = static_cast<uint32_t>(names_.size());
  names_.emplace_back(name);
  name_storage_.push_back(std::make_unique<std::string>(name));
  name_ids_.emplace(*name_storage_.back(), id);
  return id;
}

uint32_t FlameTree::new_node(uint32_t parent, uint32_t name) {
  auto id = static_cast<uint32_t>(nodes_.size());
  FlameNode node;
  node.name = name;
  node.next_sibling = nodes_[parent].first_child;
  nodes_.push_back(node);
  nodes_[parent].first_child = id;
  ++nodes_[parent].child_count;
  return id;
}

void FlameTree::index_child(uint32_t parent, uint32_t name, uint32_t node) {
  uint64_t key = (uint64_t{parent} << 32) | name;
  size_t mask = child_slots_.size() - 1;
  size_t at = slot_of(key) & mask;
  while (child_slots_[at].key != UINT64_MAX) at = (at + 1) & mask;
  child_slots_[at] = {key, node};
  if (++child_count_ * 2 > child_slots_.size()) grow_child_slots();
}

uint32_t FlameTree::child(uint32_t parent, uint32_t name) {
  uint32_t siblings = nodes_[parent].child_count;
  if (siblings <= kListedChildren) {
    for (uint32_t at = nodes_[parent].first_child; at != 0; at = nodes_[at].next_sibling)
      if (nodes_[at].name == name) return at;
  } else {
    uint64_t key = (uint64_t{parent} << 32) | name;
    size_t mask = child_slots_.size() - 1;
    for (size_t at = slot_of(key) & mask; child_slots_[at].key != UINT64_MAX; at = (at + 1) & mask)
      if (child_slots_[at].key == key) return child_slots_[at].node;
  }
  uint32_t id = new_node(parent, name);
  if (siblings == kListedChildren) {  // the list grew too long to walk: index all of it
    for (uint32_t at = nodes_[parent].first_child; at != 0; at = nodes_[at].next_sibling)
      index_child(parent, nodes_[at].name, at);
  } else if (siblings > kListedChildren) {
    index_child(parent, name, id);
  }
  return id;
}

void FlameTree::add(std::span<const std::string_view> frames, double value, const double* delta) {
  if (frames.size() > kMaxDepth) {
    ++cut_stacks_;
    deepest_stack_ = std::max(deepest_stack_, frames.size());
    size_t kept = kMaxDepth - 1;
    cut_frame_ = fmt::format("[{} more frames]", frames.size() - kept);
    // The frames drawn first stay: the root's, or the leaf's when the stack is drawn reversed.
    if (options_.reverse) {
      capped_.assign(1, cut_frame_);
      capped_.insert(capped_.end(), frames.end() - static_cast<std::ptrdiff_t>(kept), frames.end());
    } else {
      capped_.assign(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(kept));
      capped_.push_back(cut_frame_);
    }
    return add(capped_, value, delta);  // kMaxDepth frames now: not cut again
  }
  nodes_[0].value += value;
  size_t count = frames.size();
  auto frame_at = [&](size_t i) { return options_.reverse ? frames[count - 1 - i] : frames[i]; };
  uint32_t node = 0;
  bool waker = false;
  size_t depth = 0;
  // The prefix shared with the previous stack: the same nodes, found without a lookup.
  for (size_t shared = std::min(count, path_.size()); depth < shared; ++depth) {
    std::string_view frame = frame_at(depth);
    uint32_t next = path_[depth];
    std::string_view name = names_[nodes_[next].name];
    if (waker && frame != "--") {  // named frame + "_[w]"
      if (name.size() != frame.size() + 4 || !name.starts_with(frame) || !name.ends_with("_[w]")) break;
    } else if (name != frame) {
      break;
    }
    if (options_.chain && frame == "--") waker = true;
    node = next;
    nodes_[node].value += value;
  }
  path_.resize(depth);
  for (; depth < count; ++depth) {
    std::string_view frame = frame_at(depth);
    uint32_t name;
    if (options_.chain && waker && frame != "--") {
      chain_scratch_.assign(frame);
      chain_scratch_ += "_[w]";
      name = intern(chain_scratch_);
    } else {
      name = intern(frame);
    }
    if (options_.chain && frame == "--") waker = true;
    node = extend(node, name, value);
  }
  if (delta) {
    differential_ = true;
    if (deltas_.size() < nodes_.size()) deltas_.resize(nodes_.size() + nodes_.size() / 2);
    deltas_[node] += *delta;
    max_delta_ = std::max(max_delta_, std::fabs(*delta));
  }
}

uint32_t FlameTree::extend(uint32_t node, uint32_t name, double value) {
  // A flame chart merges only with the previous stack, which the shared prefix already did.
  node = options_.flamechart ? new_node(node, name) : child(node, name);
  path_.push_back(node);
  nodes_[node].value += value;
  return node;
}

void FlameTree::add(std::span<const uint32_t> ids, const std::vector<std::string>& names, double value) {
  if (options_.chain || ids.size() > kMaxDepth) {  // renamed or cut frames: the string path
    scratch_.clear();
    for (uint32_t id : ids) scratch_.push_back(names[id]);
    return add(scratch_, value);
  }
  constexpr uint32_t kNotYet = UINT32_MAX;
  if (from_producer_.size() < names.size()) from_producer_.resize(names.size(), kNotYet);
  auto ours = [&](uint32_t id) {
    uint32_t& mapped = from_producer_[id];
    if (mapped == kNotYet) mapped = intern(names[id]);
    return mapped;
  };
  nodes_[0].value += value;
  size_t count = ids.size();
  auto id_at = [&](size_t i) { return options_.reverse ? ids[count - 1 - i] : ids[i]; };
  uint32_t node = 0;
  size_t depth = 0;
  for (size_t shared = std::min(count, path_.size()); depth < shared; ++depth) {
    uint32_t next = path_[depth];
    if (nodes_[next].name != ours(id_at(depth))) break;
    node = next;
    nodes_[node].value += value;
  }
  path_.resize(depth);
  for (; depth < count; ++depth) node = extend(node, ours(id_at(depth)), value);
}

void FlameTree::add_folded(std::string_view stack, double value, const double* delta) {
  scratch_.clear();
  size_t from = 0;
  while (true) {
    size_t semi = stack.find(';', from);
    scratch_.push_back(
        stack.substr(from, semi == std::string_view::npos ? std::string_view::npos : semi - from));
    if (semi == std::string_view::npos) break;
    from = semi + 1;
  }
  // perl's split drops empty trailing fields ("a;b;" is a;b).
  while (!scratch_.empty() && scratch_.back().empty()) scratch_.pop_back();
  add(scratch_, value, delta);
}

void FlameTree::finish() {
  std::vector<uint32_t> by_name(names_.size());
  std::iota(by_name.begin(), by_name.end(), 0);
  std::sort(by_name.begin(), by_name.end(), [&](uint32_t a, uint32_t b) { return names_[a] < names_[b]; });
  name_rank_.resize(names_.size());
  for (size_t i = 0; i < by_name.size(); ++i) name_rank_[by_name[i]] = static_cast<uint32_t>(i);
}

void FlameTree::children(uint32_t node, std::vector<uint32_t>& out) const {
  out.clear();
  for (uint32_t at = nodes_[node].first_child; at != 0; at = nodes_[at].next_sibling) out.push_back(at);
  if (options_.flamechart) {
    std::reverse(out.begin(), out.end());  // the list runs latest first
  } else {
    std::sort(out.begin(), out.end(), [&](uint32_t a, uint32_t b) {
      return name_rank_[nodes_[a].name] < name_rank_[nodes_[b].name];
    });
  }
}

std::vector<uint32_t> FlameTree::children(uint32_t node) const {
  std::vector<uint32_t> out;
  children(node, out);
  return out;
}

}  // namespace sonde::analysis
