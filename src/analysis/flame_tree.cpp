#include "analysis/flame_tree.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

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
  child_slots_.resize(1 << 14);
}

uint32_t FlameTree::intern(std::string_view name) {
  if (auto found = name_ids_.find(name); found != name_ids_.end()) return found->second;
  auto id = static_cast<uint32_t>(names_.size());
  names_.emplace_back(name);
  name_storage_.push_back(std::make_unique<std::string>(name));
  name_ids_.emplace(*name_storage_.back(), id);
  return id;
}

uint32_t FlameTree::child(uint32_t parent, uint32_t name) {
  if (options_.flamechart) {
    // Time order: only the latest child can continue.
    const auto& children = nodes_[parent].children;
    if (!children.empty() && nodes_[children.back()].name == name) return children.back();
  } else {
    uint64_t key = (uint64_t{parent} << 32) | name;
    size_t mask = child_slots_.size() - 1;
    size_t at = slot_of(key) & mask;
    while (child_slots_[at].key != UINT64_MAX) {
      if (child_slots_[at].key == key) return child_slots_[at].node;
      at = (at + 1) & mask;
    }
    child_slots_[at] = {key, static_cast<uint32_t>(nodes_.size())};
    if (++child_count_ * 2 > child_slots_.size()) grow_child_slots();
  }
  auto id = static_cast<uint32_t>(nodes_.size());
  FlameNode node;
  node.name = name;
  node.parent = parent;
  node.depth = nodes_[parent].depth + 1;
  nodes_.push_back(std::move(node));
  nodes_[parent].children.push_back(id);
  return id;
}

void FlameTree::add(std::span<const std::string_view> frames, double value, const double* delta) {
  uint32_t node = 0;
  nodes_[0].value += value;
  bool waker = false;
  auto visit = [&](std::string_view frame) {
    uint32_t name;
    if (options_.chain && waker && frame != "--") {
      chain_scratch_.assign(frame);
      chain_scratch_ += "_[w]";
      name = intern(chain_scratch_);
    } else {
      name = intern(frame);
    }
    if (frame == "--") waker = true;
    node = child(node, name);
    nodes_[node].value += value;
  };
  if (options_.reverse) {
    for (size_t i = frames.size(); i-- > 0;) visit(frames[i]);
  } else {
    for (auto frame : frames) visit(frame);
  }
  if (delta) {
    differential_ = true;
    nodes_[node].delta += *delta;
    max_delta_ = std::max(max_delta_, std::fabs(*delta));
  }
}

void FlameTree::add_folded(std::string_view stack, double value, const double* delta) {
  scratch_.clear();
  size_t from = 0;
  while (true) {
    size_t semi = stack.find(';', from);
    scratch_.push_back(stack.substr(from, semi == std::string_view::npos ? std::string_view::npos : semi - from));
    if (semi == std::string_view::npos) break;
    from = semi + 1;
  }
  // perl's split drops empty trailing fields ("a;b;" is a;b).
  while (!scratch_.empty() && scratch_.back().empty()) scratch_.pop_back();
  add(scratch_, value, delta);
}

void FlameTree::finish() {
  if (options_.flamechart) return;
  for (auto& node : nodes_) {
    std::sort(node.children.begin(), node.children.end(),
              [&](uint32_t a, uint32_t b) { return names_[nodes_[a].name] < names_[nodes_[b].name]; });
  }
}

}  // namespace sonde::analysis
