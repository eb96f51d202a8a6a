#pragma once
// The merged call tree a flame graph draws: one node per distinct path from the root, its value
// the sum of the stacks through it. Built from folded lines or straight from the collapser.
// Flame charts (time order) merge a stack only with the one before it, as flamegraph.pl does.
//
// Nodes live in one array without per-node child vectors: while stacks are added a child is
// found in its parent's short sibling list, or, for parents with many children, through a hash
// of (parent, name id); finish() lays out all children at once (grouped by parent, ordered by
// name). Big profiles cost no allocation per node, and deep narrow paths no hash traffic.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sonde::analysis {

struct FlameNode {
  uint32_t name = 0;  // index into FlameTree::names(); 0 is the root's ""
  uint32_t parent = 0;
  uint32_t depth = 0;
  double value = 0;   // samples through this frame (for differential input: the "after" profile)
  double delta = 0;   // differential input: after - before of the stacks ending here
};

struct FlameTreeOptions {
  bool flamechart = false;  // keep input order, merge only with the previous stack
  bool reverse = false;     // leaf first: the merge happens at the leaf end
  bool chain = false;       // annotate frames after a "--" separator as wakers ("_[w]")
};

class FlameTree {
 public:
  explicit FlameTree(FlameTreeOptions options = {});

  // One stack, root first. `delta` is only given for differential input.
  void add(std::span<const std::string_view> frames, double value, const double* delta = nullptr);
  // A folded stack "a;b;c".
  void add_folded(std::string_view stack, double value, const double* delta = nullptr);
  // Lays out the children: by name, or in input order for flame charts. Call once after the
  // last add, before children().
  void finish();

  const std::vector<FlameNode>& nodes() const { return nodes_; }
  const std::vector<std::string>& names() const { return names_; }
  // A node's children (after finish()).
  std::span<const uint32_t> children(uint32_t node) const {
    return {child_ids_.data() + child_begin_[node], child_ids_.data() + child_begin_[node + 1]};
  }
  double total() const { return nodes_[0].value; }
  bool differential() const { return differential_; }
  double max_delta() const { return max_delta_; }

 private:
  uint32_t intern(std::string_view name);
  uint32_t child(uint32_t parent, uint32_t name);
  uint32_t new_node(uint32_t parent, uint32_t name);
  void index_child(uint32_t parent, uint32_t name, uint32_t node);

  FlameTreeOptions options_;
  std::vector<FlameNode> nodes_;
  std::vector<std::string> names_;
  std::unordered_map<std::string_view, uint32_t> name_ids_;  // views into names_ strings' copies
  std::vector<std::unique_ptr<std::string>> name_storage_;
  // Building links per node (node 0, the root, never being a child, ends a list).
  struct Links {
    uint32_t name = 0;
    uint32_t first_child = 0;
    uint32_t next_sibling = 0;
    uint32_t child_count = 0;
  };
  std::vector<Links> links_;
  // Parents with more children than this find them through child_slots_ instead of a walk.
  static constexpr uint32_t kListedChildren = 8;
  // (parent << 32 | name) -> node for those parents' children, open addressing with linear
  // probing: a node-based map spends its time in cache misses and frees.
  struct ChildSlot {
    uint64_t key = UINT64_MAX;
    uint32_t node = 0;
  };
  std::vector<ChildSlot> child_slots_;
  size_t child_count_ = 0;
  void grow_child_slots();
  // The node path of the previous stack (path_[d] at depth d + 1): sorted input shares long
  // prefixes with the stack before it, which then cost a string compare per frame, no lookup.
  // For flame charts this is the merge rule itself.
  std::vector<uint32_t> path_;
  // After finish(): the children of node n are child_ids_[child_begin_[n] .. child_begin_[n + 1]).
  std::vector<uint32_t> child_begin_;
  std::vector<uint32_t> child_ids_;
  std::vector<std::string_view> scratch_;
  std::string chain_scratch_;
  bool differential_ = false;
  double max_delta_ = 1;  // flamegraph.pl starts its maximum at 1
};

}  // namespace sonde::analysis
